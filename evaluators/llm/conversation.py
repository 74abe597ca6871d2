"""A Conversation variable as a judge sees it: a readable transcript in a ``{{placeholder}}``,
or the messages themselves as chat history placed before the judge's own user message (Coze
Loop's ``receive_chat_history``).

History must stay a request the provider accepts. OpenAI-compatible APIs take an assistant
message with ``tool_calls`` only when the tool messages answering every one of its calls come
right after it. Such a group is sent as it is; any other tool traffic (a call left unanswered,
a result that does not follow its call) becomes text: the calls are written into the assistant
message, each result becomes a user message (the side where outside input enters a chat, as
Anthropic's API puts tool results). With the ``tool`` answer mode every call becomes text: the
request declares only the ``eval`` tool, and a provider may refuse calls to tools it does not
declare (or the judge may try to call them).

Pure Python, no Django.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.vocabulary import CONTENT_FIELD, ChatRole, ContentType

MESSAGES = CONTENT_FIELD[ContentType.CONVERSATION]
ASSISTANT, TOOL, USER = ChatRole.ASSISTANT.value, ChatRole.TOOL.value, ChatRole.USER.value


def messages_of(content: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The messages of a Conversation content (well-formed ones only, defensively)."""
    messages = content.get(MESSAGES)
    return [m for m in messages if isinstance(m, Mapping)] if isinstance(messages, list) else []


def has_tool_results(content: Mapping[str, Any]) -> bool:
    """Whether the conversation carries any tool result (evidence a judge can check claims on)."""
    return any(m.get("role") == TOOL for m in messages_of(content))


# --------------------------------------------------------------------------- transcript


def transcript(content: Mapping[str, Any]) -> str:
    """The conversation as text, one speaker per line block:

        user: What is the weather in Paris?
        assistant: Let me check.
        [tool call get_weather({"city": "Paris"})]
        tool (get_weather): {"temp_c": 18}

    Continuation lines of a message are indented, so a message cannot fake another speaker's
    line."""
    messages = messages_of(content)
    names = _call_names(messages)
    return "\n".join(_block(m, names) for m in messages)


def _block(message: Mapping[str, Any], names: dict[str, str]) -> str:
    who = _speaker(message, names)
    lines = [f"{who}: {_indented(message.get('content') or '')}".rstrip()]
    lines += [f"[tool call {call_text(call)}]" for call in message.get("tool_calls") or []]
    return "\n".join(lines)


def _speaker(message: Mapping[str, Any], names: dict[str, str]) -> str:
    role = str(message.get("role") or USER)
    detail = names.get(message.get("tool_call_id") or "") if role == TOOL else message.get("name")
    return f"{role} ({detail})" if detail else role


def _indented(text: str) -> str:
    return str(text).replace("\n", "\n  ")


def call_text(call: Mapping[str, Any]) -> str:
    """``name(arguments)`` of one tool call."""
    function = call.get("function") or {}
    return f"{function.get('name', '')}({function.get('arguments', '')})"


def _call_names(messages: list[dict[str, Any]]) -> dict[str, str]:
    """Tool call id → the called function's name, so a result can say which tool answered."""
    return {
        str(call.get("id")): str((call.get("function") or {}).get("name", ""))
        for message in messages
        for call in message.get("tool_calls") or []
        if isinstance(call, Mapping)
    }


# --------------------------------------------------------------------------- history


def history_messages(content: Mapping[str, Any], *, tools_as_text: bool) -> list[dict[str, Any]]:
    """The conversation as chat messages a provider accepts (see the module docstring)."""
    messages = messages_of(content)
    names = _call_names(messages)
    out: list[dict[str, Any]] = []
    index = 0
    while index < len(messages):
        group = _answered_group(messages, index) if not tools_as_text else 0
        if group:
            out += [_structured(m) for m in messages[index : index + group]]
            index += group
        else:
            out.append(_as_text(messages[index], names))
            index += 1
    return out


def _answered_group(messages: list[dict[str, Any]], start: int) -> int:
    """The length of an assistant tool-call message plus the results answering all of its
    calls right after it; 0 when ``start`` begins no such group."""
    calls = messages[start].get("tool_calls") if messages[start].get("role") == ASSISTANT else None
    if not calls:
        return 0
    wanted = {call.get("id") for call in calls if isinstance(call, Mapping)}
    end = start + 1
    while end < len(messages) and messages[end].get("role") == TOOL:
        if messages[end].get("tool_call_id") not in wanted:
            break
        end += 1
    answered = {m.get("tool_call_id") for m in messages[start + 1 : end]}
    return end - start if answered == wanted and end - start - 1 == len(wanted) else 0


def _structured(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message as the chat API takes it (tool results carry no name there)."""
    keys = ("role", "content", "tool_call_id") if message.get("role") == TOOL else None
    keys = keys or ("role", "content", "name", "tool_calls")
    return {key: message[key] for key in keys if key in message}


def _as_text(message: Mapping[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A message without tool structure: calls written out, a result as a user message."""
    role = message.get("role")
    if role == TOOL:
        tool = names.get(message.get("tool_call_id") or "", "")
        label = f"[tool result of {tool} (call {message.get('tool_call_id')})]"
        return {"role": USER, "content": f"{label}\n{message.get('content') or ''}"}
    calls = [f"[tool call {call_text(c)}]" for c in message.get("tool_calls") or []]
    text = "\n".join(part for part in [message.get("content") or "", *calls] if part)
    plain = {"role": role, "content": text}
    if message.get("name"):
        plain["name"] = message["name"]
    return plain
