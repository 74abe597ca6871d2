"""Conversation cells: OpenAI's chat messages, checked message by message.

Pure Python, no Django (see `content`). A tool message must answer a call an earlier assistant
message declared; a CellError names the message at fault.
"""

from __future__ import annotations

import json

from assay.vocabulary import CHAT_ROLES, CONTENT_FIELD, ChatRole, ContentType

from .cells import N_, TEXT_CELL_CAP, CellError, Problem, check_text, json_kind, shown

CONVERSATION = ContentType.CONVERSATION.value
MESSAGES = CONTENT_FIELD[CONVERSATION]
MAX_MESSAGES = 500
# A conversation is many texts in one cell: four text cells' worth of JSON, the size of a
# target's answer (`assay.safety.caps.ANSWER_BYTES`); each message's text is a text cell at most.
CONVERSATION_CAP = 4 * TEXT_CELL_CAP
MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")
ID_CAP = 256


class _Calls:
    """The tool calls declared so far in a conversation, and which message answered each."""

    def __init__(self) -> None:
        self.declared: dict[str, int] = {}  # call id → number of the message that declared it
        self.answered: dict[str, int] = {}  # call id → number of the tool message answering it


def conversation_content(messages) -> dict:
    """A checked Conversation from a list of messages; a CellError names the message at fault."""
    if not isinstance(messages, list) or not messages:
        raise CellError(N_("a Conversation needs a non-empty list of messages"))
    if len(messages) > MAX_MESSAGES:
        raise CellError(
            N_("a Conversation has at most %(max)s messages, this one has %(count)s"),
            {"max": MAX_MESSAGES, "count": f"{len(messages):,}"},
        )
    calls = _Calls()
    clean = [_numbered(message, number, calls) for number, message in enumerate(messages, 1)]
    size = len(json.dumps(clean, ensure_ascii=False).encode("utf-8"))
    if size > CONVERSATION_CAP:
        raise CellError(
            N_("the conversation is %(size)s bytes of JSON; the limit is %(limit)s bytes"),
            {"size": f"{size:,}", "limit": f"{CONVERSATION_CAP:,}"},
        )
    return {"content_type": CONVERSATION, MESSAGES: clean}


def _numbered(message, number: int, calls: _Calls) -> dict:
    """One message checked; its problem is prefixed with its number (counting from 1)."""
    try:
        return _message(message, number, calls)
    except CellError as exc:
        raise CellError(
            N_("message %(number)s: %(problem)s"), {"number": number, "problem": exc.problem}
        ) from None


def _message(message, number: int, calls: _Calls) -> dict:
    if not isinstance(message, dict):
        raise CellError(
            N_("a message is an object {role, content}, got %(got)s"), {"got": json_kind(message)}
        )
    unknown = [key for key in message if key not in MESSAGE_KEYS]
    if unknown:
        raise CellError(
            N_("unknown field %(field)s; a message has %(keys)s"),
            {"field": repr(str(unknown[0])[:40]), "keys": ", ".join(MESSAGE_KEYS)},
        )
    role = message.get("role")
    if role not in CHAT_ROLES:
        raise CellError(
            N_("role must be one of %(roles)s, got %(got)s"),
            {"roles": ", ".join(CHAT_ROLES), "got": shown(role)},
        )
    clean = {"role": role, "content": _message_text(message, role)}
    if message.get("name") is not None:
        clean["name"] = _short_string(message["name"], "name")
    return ROLE_CHECKS[role](message, clean, number, calls)


def _message_text(message: dict, role: str):
    """The content: a string; None only where an assistant message calls tools instead."""
    content = message.get("content")
    if content is None and role == ChatRole.ASSISTANT and message.get("tool_calls"):
        return None
    if not isinstance(content, str):
        raise CellError(
            N_(
                "content must be a string (null only for an assistant message with tool_calls), "
                "got %(got)s"
            ),
            {"got": json_kind(content)},
        )
    return check_text(content)


def _plain(message: dict, clean: dict, number: int, calls: _Calls) -> dict:
    """system and user messages: no tool fields."""
    for key in ("tool_calls", "tool_call_id"):
        if message.get(key) is not None:
            raise CellError(
                N_("a %(role)s message cannot have %(key)s"), {"role": clean["role"], "key": key}
            )
    return clean


def _assistant(message: dict, clean: dict, number: int, calls: _Calls) -> dict:
    if message.get("tool_call_id") is not None:
        raise CellError(N_("an assistant message cannot have tool_call_id (tool messages do)"))
    tool_calls = message.get("tool_calls")
    if tool_calls is None:
        return clean
    if not isinstance(tool_calls, list) or not tool_calls:
        raise CellError(N_("tool_calls must be a non-empty list of calls"))
    clean["tool_calls"] = [
        _tool_call(call, index, number, calls) for index, call in enumerate(tool_calls, 1)
    ]
    return clean


def _tool_call(call, index: int, number: int, calls: _Calls) -> dict:
    """One declared call {id, type: function, function: {name, arguments}}, its id remembered."""
    where = Problem(N_("tool call %(index)s"), {"index": index})
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        raise CellError(
            N_("%(where)s must be {id, type: function, function: {name, arguments}}"),
            {"where": where},
        )
    call_id = _short_string(call.get("id"), Problem(N_("tool call %(index)s id"), {"index": index}))
    if call_id in calls.declared:
        raise CellError(
            N_("%(where)s: id %(id)s is already used by message %(number)s"),
            {"where": where, "id": repr(call_id), "number": calls.declared[call_id]},
        )
    if call.get("type", "function") != "function":
        raise CellError(
            N_("%(where)s: type must be 'function', got %(got)s"),
            {"where": where, "got": shown(call.get("type"))},
        )
    function = _function(call["function"], where)
    calls.declared[call_id] = number
    return {"id": call_id, "type": "function", "function": function}


def _function(function: dict, where: Problem) -> dict:
    what = Problem(N_("%(where)s function.name"), {"where": where})
    name = _short_string(function.get("name"), what)
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        raise CellError(
            N_("%(where)s: function.arguments must be a string of JSON text, got %(got)s"),
            {"where": where, "got": json_kind(arguments)},
        )
    return {"name": name, "arguments": check_text(arguments)}


def _tool(message: dict, clean: dict, number: int, calls: _Calls) -> dict:
    """A tool result: it answers, once, a call an earlier assistant message declared."""
    if message.get("tool_calls") is not None:
        raise CellError(N_("a tool message cannot have tool_calls (assistant messages do)"))
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str):
        raise CellError(
            N_("a tool message needs tool_call_id that an earlier assistant tool call declared")
        )
    if call_id not in calls.declared:
        raise CellError(
            N_(
                "a tool message needs tool_call_id that an earlier assistant tool call declared "
                "(no call has id %(id)s)"
            ),
            {"id": repr(call_id[:80])},
        )
    if call_id in calls.answered:
        raise CellError(
            N_("tool call %(id)s already has its result in message %(number)s"),
            {"id": repr(call_id), "number": calls.answered[call_id]},
        )
    calls.answered[call_id] = number
    clean["tool_call_id"] = call_id
    return clean


ROLE_CHECKS = {
    ChatRole.SYSTEM: _plain,
    ChatRole.USER: _plain,
    ChatRole.ASSISTANT: _assistant,
    ChatRole.TOOL: _tool,
}


def _short_string(value, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CellError(
            N_("%(what)s must be a non-empty string, got %(got)s"),
            {"what": what, "got": json_kind(value)},
        )
    if len(value) > ID_CAP:
        raise CellError(
            N_("%(what)s is longer than %(max)s characters"), {"what": what, "max": ID_CAP}
        )
    return value
