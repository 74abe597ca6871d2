"""What the review page shows of an item's snapshot: input, output and reference as fields
(a text as it is, a conversation as a chat, anything else as indented JSON), a conversation,
and a tool-call trajectory as its steps.

Plain values only: the templates escape every text (the snapshot is untrusted)."""

from __future__ import annotations

import json
from dataclasses import dataclass

PARTS = ("input", "output", "reference")
TRAJECTORY = "trajectory"  # the field Assay's agent evaluators read the steps from
MAX_STEPS = 200
OK_STATUSES = ("ok", "success", "succeeded")
ERROR_STATUSES = ("error", "failed", "failure")


@dataclass(frozen=True)
class Step:
    """One step of a trajectory: a tool call (its name, arguments, output) or another kind
    of step (a message, a thought) with its text; `status` "ok", "error" or ""."""

    number: int
    kind: str
    name: str
    arguments: str
    output: str
    status: str
    error: str


def snapshot_parts(snapshot: dict) -> dict:
    """Input, output and reference as (name, value, is a chat) fields, a conversation, the
    row number and a trajectory's steps (from a field named `trajectory`, any part)."""
    parts: dict = {"trajectory": None}
    for part in PARTS:
        value = snapshot.get(part)
        if isinstance(value, dict):
            fields = _without_trajectory(value, parts)
            parts[part] = [(k, shown(v), is_chat(v)) for k, v in fields.items()]
        elif value not in (None, "", []):
            parts[part] = [("", shown(value), is_chat(value))]
    if parts["trajectory"] is None:
        parts["trajectory"] = trajectory_steps(snapshot.get(TRAJECTORY))
    conversation = snapshot.get("conversation")
    parts["conversation"] = conversation if is_chat(conversation) else None
    parts["row_number"] = snapshot.get("row_number")
    return parts


def _without_trajectory(fields: dict, parts: dict) -> dict:
    """The fields but a trajectory whose steps can be read (those go to parts["trajectory"])."""
    steps = trajectory_steps(fields.get(TRAJECTORY)) if parts["trajectory"] is None else None
    if not steps:
        return fields
    parts["trajectory"] = steps
    return {k: v for k, v in fields.items() if k != TRAJECTORY}


def shown(value):
    """A text as it is, a Text content as its text, a chat as its messages, anything else as
    indented JSON."""
    if isinstance(value, dict) and value.get("content_type") == "Text":
        value = value.get("text")
    if isinstance(value, str) or is_chat(value):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def is_chat(value) -> bool:
    return isinstance(value, dict) and isinstance(value.get("messages"), list)


def trajectory_steps(value) -> list[Step] | None:
    """The steps of a trajectory: a list of step objects or {"steps": [...]}, as JSON text,
    a Text content or the value itself; None when it is no trajectory (shown as a field)."""
    if isinstance(value, dict) and value.get("content_type") == "Text":
        value = value.get("text")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:  # cut by the caps, or no JSON: a plain field
            return None
    if isinstance(value, dict):
        value = value.get("steps")
    if not isinstance(value, list) or not value or not all(isinstance(s, dict) for s in value):
        return None
    return [_step(number, step) for number, step in enumerate(value[:MAX_STEPS], 1)]


def _step(number: int, step: dict) -> Step:
    kind = str(step.get("type") or step.get("role") or "")
    arguments = step.get("arguments", step.get("input", step.get("content", "")))
    output = step.get("output", step.get("result", ""))
    return Step(
        number=number,
        kind=kind,
        name=str(step.get("name") or step.get("tool") or ""),
        arguments=_pretty(arguments),
        output=_pretty(output),
        status=_status(step.get("status")),
        error=_pretty(step.get("error") or ""),
    )


def _pretty(value) -> str:
    """A text indented when it is a JSON object or list (tool arguments, a response)."""
    if isinstance(value, str):
        if value.lstrip()[:1] not in ("{", "["):
            return value
        try:
            value = json.loads(value)
        except ValueError:
            return value
    if value is None:
        return ""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _status(value) -> str:
    text = str(value or "").lower()
    if text in OK_STATUSES:
        return "ok"
    return "error" if text in ERROR_STATUSES else ""
