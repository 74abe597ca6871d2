"""Media files of evaluation sets: checked by their bytes, kept in Django storage per workspace.

Stored paths look like `evalsets/<workspace id>/<kind>/<random>/<name>`; the workspace part is
what lets the media view and the importer refuse another workspace's files.
"""

from __future__ import annotations

import re
import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from assay.models import Workspace

from .cells import CellError, UriCheck
from .content import AUDIO, IMAGE, MEDIA_KEYS, MULTIPART

DEFAULT_MAX_MEDIA_BYTES = 25 * 1024 * 1024
DEFAULT_MAX_IMPORT_BYTES = 512 * 1024 * 1024

# (offset, signature, kind, mime). SVG is deliberately absent: it can carry scripts.
SIGNATURES = [
    (0, b"\x89PNG\r\n\x1a\n", "image", "image/png"),
    (0, b"\xff\xd8\xff", "image", "image/jpeg"),
    (0, b"GIF87a", "image", "image/gif"),
    (0, b"GIF89a", "image", "image/gif"),
    (0, b"BM", "image", "image/bmp"),
    (0, b"ID3", "audio", "audio/mpeg"),
    (0, b"OggS", "audio", "audio/ogg"),
    (0, b"fLaC", "audio", "audio/flac"),
    (0, b"\x1aE\xdf\xa3", "audio", "audio/webm"),
]
MIME_BY_EXT = {
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "bmp": "image/bmp",
    "mp3": "audio/mpeg",
    "wav": "audio/wav",
    "ogg": "audio/ogg",
    "oga": "audio/ogg",
    "opus": "audio/ogg",
    "flac": "audio/flac",
    "m4a": "audio/mp4",
    "aac": "audio/aac",
    "webm": "audio/webm",
}
SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")


def max_media_bytes() -> int:
    return int(getattr(settings, "ASSAY_EVALSET_MAX_MEDIA_BYTES", DEFAULT_MAX_MEDIA_BYTES))


def max_import_bytes() -> int:
    return int(getattr(settings, "ASSAY_EVALSET_MAX_IMPORT_BYTES", DEFAULT_MAX_IMPORT_BYTES))


def sniff_media(head: bytes) -> tuple[str, str] | None:
    """(kind, mime) from a file's first bytes, or None when it is neither image nor audio."""
    for offset, signature, kind, mime in SIGNATURES:
        if head[offset : offset + len(signature)] == signature:
            return kind, mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image", "image/webp"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio", "audio/wav"
    if head[4:8] == b"ftyp" and head[8:11] in {b"M4A", b"mp4", b"iso", b"dash"}:
        return "audio", "audio/mp4"
    if len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        return "audio", "audio/mpeg"  # an MPEG audio frame header without an ID3 tag
    return None


def safe_name(name: str) -> str:
    base = SAFE_NAME_RE.sub("_", (name or "file").rsplit("/", 1)[-1]).strip("._") or "file"
    return base[-120:]


def workspace_prefix(workspace: Workspace) -> str:
    return f"evalsets/{workspace.public_id.hex}/"


def upload_store(*, workspace: Workspace, upload, folder: str = "imports") -> str:
    """Keep an uploaded file for a background job (an import): its path in storage, under
    the workspace's prefix, in a folder of its own so two uploads of one name never meet."""
    name = getattr(upload, "name", "") or "upload"
    upload.seek(0)
    path = f"{workspace_prefix(workspace)}{folder}/{uuid.uuid4().hex}/{safe_name(name)}"
    return default_storage.save(path, upload)


def media_store(*, workspace: Workspace, upload, expected: str | None = None) -> dict:
    """Check an uploaded file's bytes and size, store it, return its content object.

    `expected` ("Image" / "Audio") makes a file of the other kind an error too.
    """
    name = getattr(upload, "name", "") or "file"
    if upload.size > max_media_bytes():
        raise ValidationError(
            {
                "file": _(
                    "%(name)s is %(size)s bytes; media files are at most %(max_media_bytes)s bytes."
                )
                % {
                    "name": name,
                    "size": format(upload.size, ","),
                    "max_media_bytes": format(max_media_bytes(), ","),
                }
            }
        )
    upload.seek(0)
    found = sniff_media(upload.read(16))
    upload.seek(0)
    if found is None:
        raise ValidationError(
            {
                "file": _(
                    "%(name)s is not an image or audio file (its content is not a known format)."
                )
                % {"name": name}
            }
        )
    kind = found[0]
    if expected and MEDIA_KEYS.get(expected) != kind:
        raise ValidationError(
            {
                "file": _("%(name)s is an %(kind)s file; this column holds %(expected)s.")
                % {"name": name, "kind": kind, "expected": expected}
            }
        )
    path = f"{workspace_prefix(workspace)}{kind}/{uuid.uuid4().hex}/{safe_name(name)}"
    stored = default_storage.save(path, upload)
    content_type = IMAGE if kind == "image" else AUDIO
    media = {"url": "", "uri": stored, "name": name[:200]}
    if kind == "audio":
        media["format"] = stored.rsplit(".", 1)[-1].lower() if "." in stored else ""
    return {"content_type": content_type, kind: media}


def uri_checker(workspace: Workspace, cache_size: int = 10_000) -> UriCheck:
    """A `check_uri` for the importer: the file must be this workspace's and of this kind."""
    prefix = workspace_prefix(workspace)
    seen: set[str] = set()

    def check(uri: str, kind: str) -> None:
        if uri in seen:
            return
        if not uri.startswith(f"{prefix}{kind}/") or ".." in uri.split("/"):
            raise CellError(
                gettext_noop("%(uri)r is not an uploaded %(kind)s file of this workspace"),
                {"uri": uri[:120], "kind": kind},
            )
        if not default_storage.exists(uri):
            raise CellError(gettext_noop("no uploaded file at %(uri)r"), {"uri": uri[:120]})
        if len(seen) < cache_size:
            seen.add(uri)

    return check


def media_mime(uri: str) -> str:
    ext = uri.rsplit(".", 1)[-1].lower() if "." in uri else ""
    return MIME_BY_EXT.get(ext, "application/octet-stream")


def media_url(workspace: Workspace, uri: str) -> str:
    """The page-served address of a stored file (members of the workspace only)."""
    return reverse("evalsets:media", kwargs={"ws": workspace.slug, "path": uri})


def with_urls(data: dict, workspace: Workspace, absolute=None) -> dict:
    """A copy of item data whose stored media carry a URL to read them by."""
    return {name: _content_with_url(c, workspace, absolute) for name, c in data.items()}


def _content_with_url(content: dict, workspace: Workspace, absolute) -> dict:
    kind = content.get("content_type")
    if kind in MEDIA_KEYS:
        key = MEDIA_KEYS[kind]
        media = content.get(key) or {}
        if media.get("uri") and not media.get("url"):
            url = media_url(workspace, media["uri"])
            return {**content, key: {**media, "url": absolute(url) if absolute else url}}
    if kind == MULTIPART:
        parts = [_content_with_url(p, workspace, absolute) for p in content.get("multi_part", [])]
        return {**content, "multi_part": parts}
    return content
