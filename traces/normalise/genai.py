"""OpenTelemetry's GenAI semantic conventions (`gen_ai.*`): the current message attributes
(`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.system_instructions`, whose
messages are made of typed parts), and the older ones (per-message span events
`gen_ai.<role>.message` / `gen_ai.choice`, and `gen_ai.prompt` / `gen_ai.completion`)."""

from __future__ import annotations

from typing import Any

from ..models import SpanKind
from .base import Fields, SpanSource, json_value, number, text_of, whole

OPERATION_KINDS = {
    "chat": SpanKind.LLM,
    "text_completion": SpanKind.LLM,
    "generate_content": SpanKind.LLM,
    "embeddings": SpanKind.EMBEDDING,
    "execute_tool": SpanKind.TOOL,
    "invoke_agent": SpanKind.AGENT,
    "create_agent": SpanKind.AGENT,
}
ROLE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


class GenAi:
    name = "genai"

    def applies(self, span: SpanSource) -> bool:
        return any(key.startswith("gen_ai.") for key in span.attributes) or any(
            name.startswith("gen_ai.") for name, _ in span.events
        )

    def fill(self, span: SpanSource, fields: Fields) -> None:
        attributes = span.attributes
        fields.put("kind", OPERATION_KINDS.get(attributes.get("gen_ai.operation.name")))
        model = attributes.get("gen_ai.response.model") or attributes.get("gen_ai.request.model")
        fields.put("model", text_of(model))
        for name, key in (("tokens_in", "input_tokens"), ("tokens_out", "output_tokens")):
            fields.put(name, whole(attributes.get(f"gen_ai.usage.{key}")))
        fields.put("tokens_in", whole(attributes.get("gen_ai.usage.prompt_tokens")))
        fields.put("tokens_out", whole(attributes.get("gen_ai.usage.completion_tokens")))
        fields.put("cost", number(attributes.get("gen_ai.usage.cost")))
        fields.put("session_id", text_of(attributes.get("gen_ai.conversation.id")))
        fields.put("error", text_of(attributes.get("error.type")))
        self._messages(span, fields)
        self._tool(attributes, fields)

    def _messages(self, span: SpanSource, fields: Fields) -> None:
        attributes = span.attributes
        system = _parts_message("system", json_value(attributes.get("gen_ai.system_instructions")))
        given = [_message(m) for m in _listed(json_value(attributes.get("gen_ai.input.messages")))]
        fields.put("input_messages", [m for m in [system, *given] if m])
        output = _listed(json_value(attributes.get("gen_ai.output.messages")))
        fields.put("output_messages", [m for m in map(_message, output) if m])
        events_in, events_out = _event_messages(span.events)
        fields.put("input_messages", events_in)
        fields.put("output_messages", events_out)
        fields.put("input_messages", _listed(json_value(attributes.get("gen_ai.prompt"))))
        fields.put("input_text", _plain(attributes.get("gen_ai.prompt")))
        fields.put("output_text", _plain(attributes.get("gen_ai.completion")))

    def _tool(self, attributes: dict, fields: Fields) -> None:
        if attributes.get("gen_ai.tool.name") and not fields.get("kind"):
            fields.put("kind", SpanKind.TOOL)
        fields.put("input_text", text_of(attributes.get("gen_ai.tool.call.arguments")))
        fields.put("output_text", text_of(attributes.get("gen_ai.tool.call.result")))


def _listed(value: Any) -> list:
    return value if isinstance(value, list) else []


def _plain(value: Any) -> str:
    """gen_ai.prompt/completion as text when they are not a JSON message list."""
    return "" if isinstance(json_value(value), list) else text_of(value)


def _message(message: Any) -> dict | None:
    """A GenAI message ({role, parts: [...]}, or already {role, content}) as a chat message."""
    if not isinstance(message, dict):
        return None
    if "parts" not in message:
        return {
            k: message[k] for k in ("role", "content", "tool_calls", "tool_call_id") if k in message
        }
    return _parts_message(message.get("role"), message.get("parts"))


def _parts_message(role: Any, parts: Any) -> dict | None:
    """Typed parts (text, tool_call, tool_call_response) folded into one chat message."""
    if not isinstance(parts, list) or not parts:
        return None
    texts, calls, message = [], [], {"role": role}
    for part in parts:
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        if kind == "tool_call":
            calls.append(_call(part.get("id"), part.get("name"), part.get("arguments")))
        elif kind == "tool_call_response":
            message.update(role="tool", tool_call_id=text_of(part.get("id")))
            texts.append(text_of(part.get("response", part.get("result"))))
        elif "content" in part:
            texts.append(text_of(part.get("content")))
    message["content"] = "\n".join(texts) if texts or not calls else None
    if calls:
        message["tool_calls"] = calls
    return message


def _call(call_id: Any, name: Any, arguments: Any) -> dict:
    arguments = arguments if isinstance(arguments, str) else text_of(arguments or {})
    return {
        "id": text_of(call_id),
        "type": "function",
        "function": {"name": text_of(name), "arguments": arguments},
    }


def _event_messages(events: list[tuple[str, dict]]) -> tuple[list, list]:
    """The older convention: one span event per message, and `gen_ai.choice` for answers."""
    given, answers = [], []
    for name, attributes in events:
        if name in ROLE_EVENTS:
            given.append(_event_message(ROLE_EVENTS[name], attributes))
        elif name == "gen_ai.choice":
            inner = json_value(attributes.get("message"))
            answers.append(
                _event_message("assistant", inner if isinstance(inner, dict) else attributes)
            )
    return [m for m in given if m], [m for m in answers if m]


def _event_message(role: str, attributes: dict) -> dict | None:
    message = {"role": attributes.get("role") or role, "content": attributes.get("content")}
    calls = _listed(json_value(attributes.get("tool_calls")))
    if calls:
        message["tool_calls"] = [
            _call(
                c.get("id"),
                (c.get("function") or {}).get("name"),
                (c.get("function") or {}).get("arguments"),
            )
            for c in calls
            if isinstance(c, dict)
        ]
    if attributes.get("id") and message["role"] == "tool":
        message["tool_call_id"] = text_of(attributes["id"])
    if message["content"] is None and not calls:
        return None
    return message


SPEC = GenAi()
