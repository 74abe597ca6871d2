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

from assay.vocabulary import CONTENT_FIELD, CONTENT_TYPES, ContentType

from .cells import N_, TEXT_CELL_CAP, CellError, UriCheck, check_text, preview
from .conversation import MESSAGES, conversation_content

TEXT, IMAGE, AUDIO, MULTIPART, CONVERSATION = (t.value for t in ContentType)
MEDIA_KEYS = {IMAGE: CONTENT_FIELD[IMAGE], AUDIO: CONTENT_FIELD[AUDIO]}

MAX_PARTS = 20
URL_CAP = 2048
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)
AUDIO_FORMATS = {"mp3", "wav", "ogg", "oga", "flac", "m4a", "aac", "webm", "opus"}


def text_content(text: str) -> dict:
    return {"content_type": TEXT, "text": text}


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
        raise CellError(EXPECTED_REFERENCE[content_type], {"got": preview(ref)})
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
