"""Content objects (Coze Loop's shape) and how cells of a file become them.

Pure Python, no Django: the import pipeline calls these in a tight loop, so each converter is
chosen once per column and does the least work that still checks the value.

A content object is one of
    {"content_type": "Text", "text": str}
    {"content_type": "Image", "image": {"url": str, "uri": str, "name": str}}
    {"content_type": "Audio", "audio": {"url": str, "uri": str, "format": str, "name": str}}
    {"content_type": "MultiPart", "multi_part": [content, ...]}
    {"content_type": "Conversation", "messages": [message, ...]}
`url` is an http(s) address kept as given; `uri` is a path in Django storage of a file uploaded
to the workspace. One of the two is set. A message is OpenAI's chat shape:
    {"role": "system" | "user" | "assistant" | "tool", "content": str | None, "name"?: str,
     "tool_calls"?: [{"id", "type": "function", "function": {"name", "arguments": str}}],
     "tool_call_id"?: str}
(content None only for an assistant message that calls tools; a tool message answers a call an
earlier assistant message declared).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from assay.vocabulary import CHAT_ROLES, CONTENT_FIELD, CONTENT_TYPES, ChatRole, ContentType

TEXT, IMAGE, AUDIO, MULTIPART, CONVERSATION = (t.value for t in ContentType)
MEDIA_KEYS = {IMAGE: CONTENT_FIELD[IMAGE], AUDIO: CONTENT_FIELD[AUDIO]}
MESSAGES = CONTENT_FIELD[CONVERSATION]

TEXT_CELL_CAP = 64 * 1024  # bytes of UTF-8 per text cell
MAX_PARTS = 20
MAX_MESSAGES = 500
# A conversation is many texts in one cell: four text cells' worth of JSON, the size of a
# target's answer (`assay.safety.caps.ANSWER_BYTES`); each message's text is a text cell at most.
CONVERSATION_CAP = 4 * TEXT_CELL_CAP
MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")
ID_CAP = 256
URL_CAP = 2048
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)
AUDIO_FORMATS = {"mp3", "wav", "ogg", "oga", "flac", "m4a", "aac", "webm", "opus"}

# `check_uri(uri, kind)` is given by the caller: does this stored file exist, in this workspace,
# and is it of this kind ("image" / "audio")? It raises CellError when not.
UriCheck = Callable[[str, str], None]


def N_(message: str) -> str:
    """Marks `message` for the catalogue (makemessages extracts `N_`) without translating it:
    this module has no Django, and an import's report is written in a worker, where no reader's
    language exists. The text is translated where it reaches a person (`Problem.render`)."""
    return message


def Nn_(singular: str, plural: str) -> tuple[str, str]:  # noqa: N802
    """Marks a message with a count, singular and plural (makemessages extracts `Nn_:1,2`), for
    `Problem(..., plural=..., n=...)`, rendered with `ngettext` where it is shown."""
    return singular, plural


class Problem(str):
    """A message id and its named parameters, and (as a str) the English text.

    Being a str keeps every caller that treats a problem as text working; a caller that shows it
    to a person renders it in the request's language, `problem.render(gettext)` (see
    `evalsets.items.problems`), and an import stores `as_json()` so its report is translated
    when read. A parameter may be a Problem itself (a phrase such as "a number")."""

    msgid: str
    params: dict
    plural: str | None
    n: int | None

    def __new__(
        cls, msgid: str, params: dict | None = None, *, plural: str | None = None, n: int = 0
    ) -> Problem:
        params = params or {}
        english = msgid if plural is None or n == 1 else plural
        self = super().__new__(cls, _format(english, english, params, N_))
        self.msgid, self.params = msgid, params
        self.plural, self.n = plural, (n if plural is not None else None)
        return self

    def render(
        self,
        translate: Callable[[str], str],
        translate_plural: Callable[[str, str, int], str] | None = None,
    ) -> str:
        """The text in the language `translate` (gettext) gives; a message with a count takes
        `translate_plural` (ngettext), English's rule without one."""
        if self.plural is None:
            text, original = translate(self.msgid), self.msgid
        else:
            original = self.msgid if self.n == 1 else self.plural
            text = (
                translate_plural(self.msgid, self.plural, self.n) if translate_plural else original
            )
        return _format(text, original, self.params, translate, translate_plural)

    def as_json(self) -> dict:
        params = {k: v.as_json() if isinstance(v, Problem) else v for k, v in self.params.items()}
        data = {"msgid": self.msgid, "params": params}
        if self.plural is not None:
            data.update(plural=self.plural, n=self.n)
        return data

    @classmethod
    def from_json(cls, data: dict) -> Problem:
        params = {k: _param(v) for k, v in (data.get("params") or {}).items()}
        if data.get("plural") is not None:
            return cls(data["msgid"], params, plural=data["plural"], n=int(data["n"]))
        return cls(data["msgid"], params)

    def __reduce__(self):
        return (_from_json, (self.as_json(),))


def _from_json(data: dict) -> Problem:
    return Problem.from_json(data)


def _param(value):
    return Problem.from_json(value) if isinstance(value, dict) and "msgid" in value else value


def _format(text: str, msgid: str, params: dict, translate, translate_plural=None) -> str:
    if not params:
        return text
    values = {
        k: v.render(translate, translate_plural) if isinstance(v, Problem) else v
        for k, v in params.items()
    }
    try:
        return text % values
    except (KeyError, ValueError, TypeError):  # a translation that lost a placeholder
        return msgid % values


class CellError(ValueError):
    """A value that cannot become the column's content; `problem` says why (a Problem: English
    as text, translated where it is shown)."""

    def __init__(self, msgid: str, params: dict | None = None):
        self.problem = msgid if isinstance(msgid, Problem) else Problem(msgid, params)
        super().__init__(str(self.problem))


def text_content(text: str) -> dict:
    return {"content_type": TEXT, "text": text}


def check_text(text: str) -> str:
    """The text itself, or CellError when it is over the per-cell cap."""
    # A str of at most cap/4 characters cannot exceed the cap in UTF-8: skip the encode.
    if len(text) > TEXT_CELL_CAP // 4 and len(text.encode("utf-8")) > TEXT_CELL_CAP:
        raise CellError(
            N_("text is %(size)s bytes; the limit is %(limit)s bytes"),
            {"size": f"{len(text.encode('utf-8')):,}", "limit": f"{TEXT_CELL_CAP:,}"},
        )
    return text


def media_from_reference(ref: str, content_type: str, check_uri: UriCheck) -> dict:
    """An Image/Audio content from a URL (kept as is) or the storage path of an uploaded file."""
    key = MEDIA_KEYS[content_type]
    ref = ref.strip()
    if len(ref) > URL_CAP:
        raise CellError(
            N_("%(key)s reference is longer than %(limit)s characters"),
            {"key": key, "limit": URL_CAP},
        )
    name = ref.rsplit("/", 1)[-1].split("?", 1)[0][:200]
    if URL_RE.match(ref):
        media = {"url": ref, "uri": "", "name": name}
    elif ref.startswith(("http:", "https:")) or "://" in ref:
        raise CellError(N_("%(ref)s is not a valid http(s) URL"), {"ref": repr(ref[:80])})
    elif ref.startswith("evalsets/"):
        check_uri(ref, key)
        media = {"url": "", "uri": ref, "name": name}
    else:
        raise CellError(EXPECTED_REFERENCE[content_type], {"got": _preview(ref)})
    if content_type == AUDIO:
        media["format"] = _audio_format(name)
    return {"content_type": content_type, key: media}


EXPECTED_REFERENCE = {
    IMAGE: N_(
        "expected an image URL (http/https) or the path of an uploaded image file, got %(got)s"
    ),
    AUDIO: N_(
        "expected an audio URL (http/https) or the path of an uploaded audio file, got %(got)s"
    ),
}


def _audio_format(name: str) -> str:
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    return ext if ext in AUDIO_FORMATS else ""


def _preview(value: str) -> str:
    return repr(value[:40] + ("…" if len(value) > 40 else ""))


def converter(content_type: str, check_uri: UriCheck) -> Callable[[object], dict]:
    """A one-argument converter for a column, with a fast path for short plain text."""
    if content_type != TEXT:
        return lambda value: content_from_value(value, content_type, check_uri)
    fast = TEXT_CELL_CAP // 4

    def text(value) -> dict:
        if type(value) is str and len(value) <= fast:
            return {"content_type": TEXT, "text": value}
        return content_from_value(value, TEXT, check_uri)

    return text


def content_from_value(value, content_type: str, check_uri: UriCheck) -> dict:
    """A cell (a string, or a content object from JSON) as content of `content_type`."""
    if isinstance(value, dict):
        return check_content(value, content_type, check_uri)
    if isinstance(value, str):
        return content_from_string(value, content_type, check_uri)
    if isinstance(value, bool) or value is None:
        raise CellError(
            N_("expected %(type)s content, got %(got)s"),
            {"type": content_type, "got": json.dumps(value)},
        )
    if isinstance(value, int | float) and content_type == TEXT:
        return text_content(str(value))  # numbers in JSONL are common for Text columns
    if isinstance(value, list) and content_type == MULTIPART:
        return check_content({"content_type": MULTIPART, "multi_part": value}, MULTIPART, check_uri)
    if isinstance(value, list) and content_type == CONVERSATION:
        return conversation_content(value)
    raise CellError(
        N_("expected %(type)s content, got a JSON %(kind)s"),
        {"type": content_type, "kind": type(value).__name__},
    )


def content_from_string(value: str, content_type: str, check_uri: UriCheck) -> dict:
    """A text cell (CSV, or a JSON string) as content of `content_type`."""
    if content_type == TEXT:
        return text_content(check_text(value))
    if content_type in MEDIA_KEYS:
        if value.lstrip().startswith("{"):
            return check_content(_json_cell(value), content_type, check_uri)
        return media_from_reference(value, content_type, check_uri)
    # MultiPart and Conversation: a JSON content object, or the list of parts / messages
    return content_from_value(_json_cell(value), content_type, check_uri)


def _json_cell(value: str):
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise CellError(
            N_("not valid JSON: %(error)s (character %(position)s)"),
            {"error": exc.msg, "position": exc.pos + 1},
        ) from None


def check_content(obj: dict, expected: str, check_uri: UriCheck, depth: int = 0) -> dict:
    """Validate a content object against the column's content type and return a clean copy."""
    actual = obj.get("content_type")
    if actual not in CONTENT_TYPES:
        raise CellError(
            N_("content_type must be one of %(content_types)s, got %(content_type)s"),
            {"content_types": ", ".join(CONTENT_TYPES), "content_type": repr(actual)},
        )
    if actual != expected:
        raise CellError(
            N_("wrong content type %(actual)s: this column holds %(expected)s"),
            {"actual": actual, "expected": expected},
        )
    if actual == TEXT:
        text = obj.get("text")
        if not isinstance(text, str):
            raise CellError(N_("a Text content needs a string 'text'"))
        return text_content(check_text(text))
    if actual in MEDIA_KEYS:
        return _check_media(obj, actual, check_uri)
    if actual == CONVERSATION:
        return conversation_content(obj.get(MESSAGES))
    return _check_multipart(obj, check_uri, depth)


def _check_media(obj: dict, content_type: str, check_uri: UriCheck) -> dict:
    key = MEDIA_KEYS[content_type]
    media = obj.get(key)
    if not isinstance(media, dict):
        raise CellError(
            N_("an %(type)s content needs an object %(key)s"),
            {"type": content_type, "key": repr(key)},
        )
    url, uri = media.get("url") or "", media.get("uri") or ""
    if not isinstance(url, str) or not isinstance(uri, str):
        raise CellError(N_("%(key)s.url and %(key)s.uri must be strings"), {"key": key})
    if not url and not uri:
        raise CellError(
            N_("an %(type)s content needs %(key)s.url or %(key)s.uri"),
            {"type": content_type, "key": key},
        )
    clean = media_from_reference(uri or url, content_type, check_uri)
    if uri and url:
        clean[key]["url"] = ""  # a stored file's URL is derived when read, never trusted
    name = media.get("name")
    if isinstance(name, str) and name.strip():
        clean[key]["name"] = name.strip()[:200]
    return clean


def _check_multipart(obj: dict, check_uri: UriCheck, depth: int) -> dict:
    parts = obj.get("multi_part")
    if not isinstance(parts, list) or not parts:
        raise CellError(N_("a MultiPart content needs a non-empty list 'multi_part'"))
    if len(parts) > MAX_PARTS:
        raise CellError(N_("a MultiPart content has at most %(max)s parts"), {"max": MAX_PARTS})
    if depth > 0:
        raise CellError(N_("MultiPart parts cannot be MultiPart themselves"))
    clean = []
    for index, part in enumerate(parts):
        if not isinstance(part, dict) or part.get("content_type") not in (TEXT, IMAGE, AUDIO):
            raise CellError(
                N_("part %(number)s must be a Text, Image or Audio content object"),
                {"number": index + 1},
            )
        clean.append(check_content(part, part["content_type"], check_uri, depth + 1))
    return {"content_type": MULTIPART, "multi_part": clean}


# ----------------------------------------------------------------------------- conversations


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
            N_("a message is an object {role, content}, got %(got)s"), {"got": _json_kind(message)}
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
            {"roles": ", ".join(CHAT_ROLES), "got": _shown(role)},
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
            {"got": _json_kind(content)},
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
            {"where": where, "got": _shown(call.get("type"))},
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
            {"where": where, "got": _json_kind(arguments)},
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
            {"what": what, "got": _json_kind(value)},
        )
    if len(value) > ID_CAP:
        raise CellError(
            N_("%(what)s is longer than %(max)s characters"), {"what": what, "max": ID_CAP}
        )
    return value


JSON_KINDS = {
    str: N_("a string"),
    int: N_("a number"),
    float: N_("a number"),
    list: N_("a list"),
    dict: N_("an object"),
}


def _json_kind(value) -> str:
    """How a JSON value reads in a message: null, a number, an object… (a Problem, so the
    phrase is translated with the message it is part of)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    kind = JSON_KINDS.get(type(value))
    return Problem(kind) if kind else type(value).__name__


def _shown(value) -> str:
    return _preview(value) if isinstance(value, str) else _json_kind(value)


# ----------------------------------------------------------------------------- reading contents


def content_text(content: dict) -> str:
    """The human-readable text of a content (text, file names, parts, the first messages), for
    previews and search."""
    if content.get("content_type") == MULTIPART:
        return " ".join(content_text(p) for p in content.get("multi_part", []))
    if content.get("content_type") == CONVERSATION:
        return "\n".join(_message_line(m) for m in content[MESSAGES][:PREVIEW_TURNS])
    return _single(content, ("name", "url", "uri")) or ""


PREVIEW_TURNS = 10  # enough for the 500 characters a cell gives search and previews


def _message_line(message: dict) -> str:
    calls = [f"[{c['function']['name']}]" for c in message.get("tool_calls") or []]
    words = [f"{message['role']}:", message.get("content") or "", *calls]
    return " ".join(word for word in words if word)


def content_cell(content: dict) -> str:
    """A content as one CSV cell: text as is, media as their URL or path, a conversation as the
    JSON array of its messages, MultiPart as JSON."""
    if content.get("content_type") == CONVERSATION:
        return json.dumps(content[MESSAGES], ensure_ascii=False)
    single = _single(content, ("uri", "url"))
    return json.dumps(content, ensure_ascii=False) if single is None else single


def export_value(content: dict):
    """A content as a JSONL export writes it: a conversation as its messages array (which
    imports back unchanged), anything else as the content object."""
    return content[MESSAGES] if content.get("content_type") == CONVERSATION else content


def content_type_of(value) -> str | None:
    """The content type a JSON value announces: a content object's, Conversation for a list of
    messages (objects with a role), else None (for guessing a new column's type)."""
    if isinstance(value, dict) and value.get("content_type") in CONTENT_TYPES:
        return value["content_type"]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(m, dict) and "role" in m for m in value)
    ):
        return CONVERSATION
    return None


def _single(content: dict, media_keys: tuple[str, ...]) -> str | None:
    """A text's text, or a medium's first present `media_keys` value ('' if none); None for
    anything else."""
    kind = content.get("content_type")
    if kind == TEXT:
        return content.get("text", "")
    if kind in MEDIA_KEYS:
        media = content.get(MEDIA_KEYS[kind], {})
        return next((media[k] for k in media_keys if media.get(k)), "")
    return None


def content_uris(content: dict) -> list[tuple[str, str]]:
    """The stored files a content refers to, as (kind, uri) pairs."""
    kind = content.get("content_type")
    if kind in MEDIA_KEYS:
        uri = content.get(MEDIA_KEYS[kind], {}).get("uri")
        return [(MEDIA_KEYS[kind], uri)] if uri else []
    if kind == MULTIPART:
        return [pair for part in content.get("multi_part", []) for pair in content_uris(part)]
    return []
