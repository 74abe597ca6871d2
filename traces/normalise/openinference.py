"""OpenInference (Arize Phoenix's convention): `openinference.span.kind`, `input.value` /
`output.value`, flattened message lists (`llm.input_messages.<i>.message.*`), token counts,
`llm.model_name`, `tool.*`, retrieved documents, `session.id` and `user.id`."""

from __future__ import annotations

import re
from typing import Any

from ..models import SpanKind
from .base import Fields, SpanSource, number, text_of, whole

KINDS = {kind.upper(): kind for kind in SpanKind.values}
MESSAGE = re.compile(r"^llm\.(input|output)_messages\.(\d+)\.message\.(.+)$")
CALL = re.compile(r"^tool_calls\.(\d+)\.tool_call\.(id|function\.name|function\.arguments)$")
PART = re.compile(r"^contents\.(\d+)\.message_content\.text$")
DOCUMENT = re.compile(r"^retrieval\.documents\.(\d+)\.document\.content$")


class OpenInference:
    name = "openinference"

    def applies(self, span: SpanSource) -> bool:
        attributes = span.attributes
        return "openinference.span.kind" in attributes or any(
            key.startswith(("llm.", "input.value", "output.value")) for key in attributes
        )

    def fill(self, span: SpanSource, fields: Fields) -> None:
        attributes = span.attributes
        fields.put("kind", KINDS.get(str(attributes.get("openinference.span.kind", "")).upper()))
        fields.put("model", text_of(attributes.get("llm.model_name")))
        fields.put("tokens_in", whole(attributes.get("llm.token_count.prompt")))
        fields.put("tokens_out", whole(attributes.get("llm.token_count.completion")))
        fields.put("cost", number(attributes.get("llm.cost.total")))
        fields.put("session_id", text_of(attributes.get("session.id")))
        fields.put("user_id", text_of(attributes.get("user.id")))
        given, answers = _messages(attributes)
        fields.put("input_messages", given)
        fields.put("output_messages", answers)
        fields.put("input_text", text_of(attributes.get("input.value")))
        fields.put("output_text", text_of(attributes.get("output.value")))
        fields.put("input_text", text_of(attributes.get("tool.parameters")))
        fields.put("output_text", _documents(attributes))


def _messages(attributes: dict[str, Any]) -> tuple[list, list]:
    """The flattened message lists rebuilt: {direction: {index: message}}, then in order."""
    found: dict[str, dict[int, dict]] = {"input": {}, "output": {}}
    for key, value in attributes.items():
        match = MESSAGE.match(key)
        if match:
            direction, index, rest = match.group(1), int(match.group(2)), match.group(3)
            _message_field(found[direction].setdefault(index, {}), rest, value)
    return tuple([_finished(m) for _, m in sorted(found[d].items())] for d in ("input", "output"))


def _message_field(message: dict, rest: str, value: Any) -> None:
    call, part = CALL.match(rest), PART.match(rest)
    if rest in ("role", "content", "name", "tool_call_id"):
        message[rest] = text_of(value)
    elif part:
        message.setdefault("_parts", {})[int(part.group(1))] = text_of(value)
    elif call:
        calls = message.setdefault("_calls", {}).setdefault(int(call.group(1)), {})
        calls[call.group(2)] = text_of(value)


def _finished(message: dict) -> dict:
    parts = message.pop("_parts", {})
    if "content" not in message and parts:
        message["content"] = "\n".join(text for _, text in sorted(parts.items()))
    calls = [call for _, call in sorted(message.pop("_calls", {}).items())]
    if calls:
        message["tool_calls"] = [
            {
                "id": call.get("id", ""),
                "type": "function",
                "function": {
                    "name": call.get("function.name", ""),
                    "arguments": call.get("function.arguments", "{}"),
                },
            }
            for call in calls
        ]
        message.setdefault("content", None)
    message.setdefault("content", "")
    return message


def _documents(attributes: dict[str, Any]) -> str:
    """A retriever's documents' contents, one after another (when it gave no output.value)."""
    found = {}
    for key, value in attributes.items():
        match = DOCUMENT.match(key)
        if match:
            found[int(match.group(1))] = text_of(value)
    return "\n\n".join(text for _, text in sorted(found.items()))


SPEC = OpenInference()
