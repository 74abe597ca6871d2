"""Content objects (Coze Loop's shape) and how cells of a file become them.

Pure Python, no Django: the import pipeline calls these in a tight loop, so each converter is
chosen once per column and does the least work that still checks the value.

A content object is one of
    {"content_type": "Text", "text": str}
    {"content_type": "Image", "image": {"url": str, "uri": str, "name": str}}
    {"content_type": "Audio", "audio": {"url": str, "uri": str, "format": str, "name": str}}
    {"content_type": "MultiPart", "multi_part": [content, ...]}
`url` is an http(s) address kept as given; `uri` is a path in Django storage of a file uploaded
to the workspace. One of the two is set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from assay.vocabulary import CONTENT_FIELD, CONTENT_TYPES, ContentType

TEXT, IMAGE, AUDIO, MULTIPART = (t.value for t in ContentType)
MEDIA_KEYS = {IMAGE: CONTENT_FIELD[IMAGE], AUDIO: CONTENT_FIELD[AUDIO]}

TEXT_CELL_CAP = 64 * 1024  # bytes of UTF-8 per text cell
MAX_PARTS = 20
URL_CAP = 2048
URL_RE = re.compile(r"^https?://[^\s/$.?#][^\s]*$", re.IGNORECASE)
AUDIO_FORMATS = {"mp3", "wav", "ogg", "oga", "flac", "m4a", "aac", "webm", "opus"}

# `check_uri(uri, kind)` is given by the caller: does this stored file exist, in this workspace,
# and is it of this kind ("image" / "audio")? It raises CellError when not.
UriCheck = Callable[[str, str], None]


class CellError(ValueError):
    """A value that cannot become the column's content; the message says why, for a human."""


def text_content(text: str) -> dict:
    return {"content_type": TEXT, "text": text}


def check_text(text: str) -> str:
    """The text itself, or CellError when it is over the per-cell cap."""
    # A str of at most cap/4 characters cannot exceed the cap in UTF-8: skip the encode.
    if len(text) > TEXT_CELL_CAP // 4 and len(text.encode("utf-8")) > TEXT_CELL_CAP:
        raise CellError(
            f"text is {len(text.encode('utf-8')):,} bytes; the limit is {TEXT_CELL_CAP:,} bytes"
        )
    return text


def media_from_reference(ref: str, content_type: str, check_uri: UriCheck) -> dict:
    """An Image/Audio content from a URL (kept as is) or the storage path of an uploaded file."""
    key = MEDIA_KEYS[content_type]
    ref = ref.strip()
    if len(ref) > URL_CAP:
        raise CellError(f"{key} reference is longer than {URL_CAP} characters")
    name = ref.rsplit("/", 1)[-1].split("?", 1)[0][:200]
    if URL_RE.match(ref):
        media = {"url": ref, "uri": "", "name": name}
    elif ref.startswith(("http:", "https:")) or "://" in ref:
        raise CellError(f"{ref[:80]!r} is not a valid http(s) URL")
    elif ref.startswith("evalsets/"):
        check_uri(ref, key)
        media = {"url": "", "uri": ref, "name": name}
    else:
        raise CellError(
            f"expected an {key} URL (http/https) or the path of an uploaded {key} file, "
            f"got {_preview(ref)}"
        )
    if content_type == AUDIO:
        media["format"] = _audio_format(name)
    return {"content_type": content_type, key: media}


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
        raise CellError(f"expected {content_type} content, got {json.dumps(value)}")
    if isinstance(value, int | float) and content_type == TEXT:
        return text_content(str(value))  # numbers in JSONL are common for Text columns
    if isinstance(value, list) and content_type == MULTIPART:
        return check_content({"content_type": MULTIPART, "multi_part": value}, MULTIPART, check_uri)
    raise CellError(f"expected {content_type} content, got a JSON {type(value).__name__}")


def content_from_string(value: str, content_type: str, check_uri: UriCheck) -> dict:
    """A text cell (CSV, or a JSON string) as content of `content_type`."""
    if content_type == TEXT:
        return text_content(check_text(value))
    if content_type in MEDIA_KEYS:
        if value.lstrip().startswith("{"):
            return check_content(_json_cell(value), content_type, check_uri)
        return media_from_reference(value, content_type, check_uri)
    parsed = _json_cell(value)  # MultiPart: a JSON content object or a list of parts
    return content_from_value(parsed, MULTIPART, check_uri)


def _json_cell(value: str):
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        raise CellError(f"not valid JSON: {exc.msg} (character {exc.pos + 1})") from None


def check_content(obj: dict, expected: str, check_uri: UriCheck, depth: int = 0) -> dict:
    """Validate a content object against the column's content type and return a clean copy."""
    actual = obj.get("content_type")
    if actual not in CONTENT_TYPES:
        raise CellError(f"content_type must be one of {', '.join(CONTENT_TYPES)}, got {actual!r}")
    if actual != expected:
        raise CellError(f"wrong content type {actual}: this column holds {expected}")
    if actual == TEXT:
        text = obj.get("text")
        if not isinstance(text, str):
            raise CellError("a Text content needs a string 'text'")
        return text_content(check_text(text))
    if actual in MEDIA_KEYS:
        return _check_media(obj, actual, check_uri)
    return _check_multipart(obj, check_uri, depth)


def _check_media(obj: dict, content_type: str, check_uri: UriCheck) -> dict:
    key = MEDIA_KEYS[content_type]
    media = obj.get(key)
    if not isinstance(media, dict):
        raise CellError(f"an {content_type} content needs an object {key!r}")
    url, uri = media.get("url") or "", media.get("uri") or ""
    if not isinstance(url, str) or not isinstance(uri, str):
        raise CellError(f"{key}.url and {key}.uri must be strings")
    if not url and not uri:
        raise CellError(f"an {content_type} content needs {key}.url or {key}.uri")
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
        raise CellError("a MultiPart content needs a non-empty list 'multi_part'")
    if len(parts) > MAX_PARTS:
        raise CellError(f"a MultiPart content has at most {MAX_PARTS} parts")
    if depth > 0:
        raise CellError("MultiPart parts cannot be MultiPart themselves")
    clean = []
    for index, part in enumerate(parts):
        if not isinstance(part, dict) or part.get("content_type") not in (TEXT, IMAGE, AUDIO):
            raise CellError(f"part {index + 1} must be a Text, Image or Audio content object")
        clean.append(check_content(part, part["content_type"], check_uri, depth + 1))
    return {"content_type": MULTIPART, "multi_part": clean}


def content_text(content: dict) -> str:
    """The human-readable text of a content (text, file names, parts), for previews and search."""
    if content.get("content_type") == MULTIPART:
        return " ".join(content_text(p) for p in content.get("multi_part", []))
    return _single(content, ("name", "url", "uri")) or ""


def content_cell(content: dict) -> str:
    """A content as one CSV cell: text as is, media as their URL or path, MultiPart as JSON."""
    single = _single(content, ("uri", "url"))
    return json.dumps(content, ensure_ascii=False) if single is None else single


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
