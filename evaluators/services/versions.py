"""What a version is and how two differ, in words a reader knows: every field that changes
results (score meaning, verdict policy and threshold, model, temperature, code language,
prompt, code) under a plain label ("Threshold", "System message"), never a config path alone;
and restoring an old version into the draft."""

from __future__ import annotations

import difflib
import json
import re
from itertools import zip_longest
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from assay.vocabulary import PolicyKind, ScoreMeaning

from .. import config as config_schema
from ..models import Evaluator, EvaluatorVersion
from .library import evaluator_update_draft

# Labels by a path's shape (indexes dropped): the kinds' keys and the version's own fields.
LABELS = {
    "score_meaning": gettext_lazy("Score meaning"),
    "default_policy.kind": gettext_lazy("Verdict policy"),
    "default_policy.threshold": gettext_lazy("Threshold"),
    "model": gettext_lazy("Model settings"),
    "model.model": gettext_lazy("Model"),
    "model.provider_id": gettext_lazy("Provider"),
    "model.temperature": gettext_lazy("Temperature"),
    "model.max_tokens": gettext_lazy("Max output tokens"),
    "model.top_p": gettext_lazy("Top P"),
    "language": gettext_lazy("Code language"),
    "source": gettext_lazy("Code"),
    "timeout_s": gettext_lazy("Time limit (s)"),
    "memory_mb": gettext_lazy("Memory limit (MB)"),
    "chat_history_variable": gettext_lazy("Chat history variable"),
    "needs_tool_results": gettext_lazy("Needs tool results"),
    "input_variables": gettext_lazy("Input variables"),
    "messages": gettext_lazy("Messages"),
}
ROLE_LABELS = {
    "system": gettext_lazy("System message"),
    "user": gettext_lazy("User message"),
    "assistant": gettext_lazy("Assistant message"),
}
VARIABLE_KEYS = {
    "name": gettext_lazy("name"),
    "content_type": gettext_lazy("type"),
    "required": gettext_lazy("required"),
    "description": gettext_lazy("description"),
}
FIRST_KEYS = {"name": 0, "content_type": 1, "required": 2}  # a variable reads name first
_MESSAGE = re.compile(r"^messages\[(\d+)\](?:\.(.+))?$")
_VARIABLE = re.compile(r"^input_variables\[(\d+)\](?:\.(\w+))?$")


def version_diff(*, old: dict, new: dict) -> list[dict]:
    """Every difference between two snapshots (`selectors.evaluator_snapshot`), the fields
    that decide results first: `{"path", "label", "change", "old", "new", "old_text",
    "new_text"}`; text fields also `"diff"` (unified lines, for the API) and `"pairs"`
    (side-by-side lines for the page, a gap between hunks)."""
    changes = []
    if old["score_meaning"] != new["score_meaning"]:
        changes.append(
            {"path": "score_meaning", "change": "changed", **_pair(old, new, "score_meaning")}
        )
    for entry in config_schema.diff_configs(old["default_policy"], new["default_policy"]):
        changes.append({**entry, "path": f"default_policy.{entry['path']}"})
    changes.extend(config_schema.diff_configs(old["config"], new["config"]))
    messages = new["config"].get("messages") or old["config"].get("messages") or []
    for entry in changes:
        entry["label"] = field_label(entry["path"], messages=messages)
        entry["old_text"] = shown(entry["path"], entry["old"])
        entry["new_text"] = shown(entry["path"], entry["new"])
        if "diff" in entry:
            entry["pairs"] = text_pairs(entry["old"] or "", entry["new"] or "")
    return changes


def _pair(old: dict, new: dict, key: str) -> dict:
    return {"old": old[key], "new": new[key]}


def field_label(path: str, *, messages: list) -> str:
    """A plain name for a config path: "Threshold", "System message", "Input variable 2 ·
    type"; an unknown key falls back to the path itself."""
    found = _MESSAGE.match(path)
    if found:
        return _message_label(int(found.group(1)), found.group(2), messages)
    found = _VARIABLE.match(path)
    if found:
        label = _("Input variable %(n)d") % {"n": int(found.group(1)) + 1}
        key = found.group(2)
        return f"{label} · {VARIABLE_KEYS.get(key, key)}" if key else label
    return str(LABELS.get(path, path))


def _message_label(index: int, rest: str | None, messages: list) -> str:
    message = messages[index] if index < len(messages) else {}
    role = message.get("role") if isinstance(message, dict) else None
    same = [m for m in messages[:index] if isinstance(m, dict) and m.get("role") == role]
    label = str(ROLE_LABELS.get(role, _("Message %(n)d") % {"n": index + 1}))
    if same:
        label = f"{label} {len(same) + 1}"
    if rest in (None, "content"):
        return label
    if rest == "role":
        return f"{label} · {_('role')}"
    part = re.match(r"^content\[(\d+)\]", rest)
    return f"{label} · {_('part %(n)d') % {'n': int(part.group(1)) + 1}}" if part else label


def text_pairs(old: str, new: str, *, context: int = 3) -> list[tuple[str, str, str]]:
    """Side-by-side lines `(kind, left, right)`, kind in same/del/add/change/gap: the changed
    lines with `context` lines around them, a "gap" row where unchanged lines are left out."""
    a, b = old.splitlines(), new.splitlines()
    rows: list[tuple[str, str, str]] = []
    shown_to = 0  # the old text's lines shown so far
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(context):
        if group[0][1] > shown_to:
            rows.append(("gap", "", ""))
        for tag, i1, i2, j1, j2 in group:
            rows.extend(_rows(tag, a[i1:i2], b[j1:j2]))
        shown_to = group[-1][2]
    if rows and shown_to < len(a):
        rows.append(("gap", "", ""))
    return rows


def _rows(tag: str, left: list[str], right: list[str]) -> list[tuple[str, str, str]]:
    if tag == "equal":
        return [("same", x, x) for x in left]
    if tag == "delete":
        return [("del", x, "") for x in left]
    if tag == "insert":
        return [("add", "", y) for y in right]
    return [("change", x, y) for x, y in zip_longest(left, right, fillvalue="")]


def version_fields(*, snapshot: dict) -> list[dict]:
    """A version read field by field for its read-only page: `{"label", "value", "text"}`,
    text (prompts, code) kept whole for a <pre>."""
    rows = [
        {
            "label": LABELS["score_meaning"],
            "value": shown("score_meaning", snapshot["score_meaning"]),
        },
        {"label": LABELS["default_policy.kind"], "value": _policy_text(snapshot["default_policy"])},
    ]
    config = snapshot["config"]
    messages = config.get("messages") or []
    for path, value in _leaves(config, ""):
        if path.endswith(".role"):
            continue  # the label names the role already
        label = field_label(path, messages=messages)
        text = isinstance(value, str) and ("\n" in value or path.endswith(("content", "source")))
        rows.append({"label": label, "value": value_text(value), "text": text})
    return rows


def _leaves(value: Any, path: str):
    """(path, value) of every leaf, with diff_configs' path grammar."""
    if isinstance(value, dict):
        for key in sorted(value, key=lambda k: (FIRST_KEYS.get(k, len(FIRST_KEYS)), str(k))):
            yield from _leaves(value[key], config_schema.join(path, str(key)))
    elif isinstance(value, list) and value and path != "model":
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    else:
        yield path, value


def shown(path: str, value: Any) -> str:
    """A value under `path` as a reader sees it: a choice's label, else `value_text`."""
    choices = {"score_meaning": ScoreMeaning.choices, "default_policy.kind": PolicyKind.choices}
    if path in choices and isinstance(value, str):
        return str(dict(choices[path]).get(value, value))
    return value_text(value)


def _policy_text(policy: dict) -> str:
    policy = policy or {}
    kind = shown("default_policy.kind", policy.get("kind"))
    threshold = policy.get("threshold")
    return f"{kind} · {threshold:g}" if isinstance(threshold, int | float) else kind


def value_text(value: Any) -> str:
    """A config value as a reader sees it: text as is, the rest as compact JSON, "—" for none."""
    if value is None:
        return "—"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def evaluator_draft_from_version(
    *, evaluator: Evaluator, version: EvaluatorVersion, user: AbstractBaseUser
) -> Evaluator:
    """Put an old version's score meaning, policy and config back into the draft (name,
    description and tags stay); the versions themselves never change."""
    return evaluator_update_draft(
        evaluator=evaluator,
        user=user,
        score_meaning=version.score_meaning,
        default_policy=version.default_policy,
        config=version.config,
    )
