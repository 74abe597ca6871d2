"""Request templates of HTTP targets: `{{column}}` placeholders in a URL, headers and a JSON body.

A placeholder names a column of the evalset (or `item_id`), optionally with a filter:

- `{{question}}` — the column's text (a medium: its URL; see `url`);
- `{{n | number}}` — the text as a JSON number;
- `{{payload | json}}` — the text parsed as a JSON value;
- `{{photo | url}}` — a URL the app can fetch: the medium's own, else a `data:` URL of its bytes;
- `{{dialogue}}` — a Conversation column: its messages array (OpenAI's chat shape) as a JSON
  value, or that array's JSON text inside a longer string.

A JSON string that is exactly one placeholder becomes the typed value; placeholders inside a
longer string are replaced by text. In headers, `{{secrets.NAME}}` is a workspace secret,
filled in only on the worker that sends the request.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from django.utils.translation import gettext as _

from assay.vocabulary import CONTENT_FIELD, ContentType

PLACEHOLDER = re.compile(
    r"\{\{\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*"
    r"(?:\|\s*(?P<filter>[a-z_]+)\s*)?\}\}"
)
FILTERS = ("text", "number", "json", "url")
SECRET_PREFIX = "secrets."
ITEM_ID = "item_id"


class RowError(Exception):
    """This row cannot be sent (a number that is not one, JSON that does not parse…)."""


def placeholders(value: Any) -> list[tuple[str, str | None]]:
    """Every (name, filter) used anywhere in a JSON template or string."""
    found: list[tuple[str, str | None]] = []
    _walk(value, lambda text: found.extend(_names(text)))
    return found


def _names(text: str) -> list[tuple[str, str | None]]:
    return [(m.group("name"), m.group("filter")) for m in PLACEHOLDER.finditer(text)]


def _walk(value: Any, visit: Callable[[str], None]) -> None:
    if isinstance(value, str):
        visit(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            visit(key)
            _walk(item, visit)
    elif isinstance(value, list):
        for item in value:
            _walk(item, visit)


def template_problems(value: Any, columns: dict[str, dict], *, secrets_allowed: bool) -> list[str]:
    """What is wrong with the placeholders of a template (unknown columns, filters, secrets)."""
    problems = []
    for name, filter_ in placeholders(value):
        if filter_ is not None and filter_ not in FILTERS:
            problems.append(
                _("{{%(name)s | %(filter_)s}}: use one of %(filters)s.")
                % {"name": name, "filter_": filter_, "filters": ", ".join(FILTERS)}
            )
        if name.startswith(SECRET_PREFIX):
            if not secrets_allowed:
                problems.append(
                    _("{{%(name)s}}: secrets may be used in headers only.") % {"name": name}
                )
        elif name != ITEM_ID and name not in columns:
            problems.append(_("{{%(name)s}} is not a column of the evalset.") % {"name": name})
    return problems


class Renderer:
    """Fills templates for one row; media become URLs through `media_url(content)`."""

    def __init__(self, item, media_url: Callable[[dict], str], secrets: dict[str, str]):
        self.item, self.media_url, self.secrets = item, media_url, secrets

    def json(self, template: Any) -> Any:
        """A JSON template with typed whole-string placeholders and text ones inside strings."""
        if isinstance(template, str):
            whole = PLACEHOLDER.fullmatch(template.strip())
            if whole:
                return self._typed(whole.group("name"), whole.group("filter"))
            return self.text(template)
        if isinstance(template, dict):
            return {self.text(k): self.json(v) for k, v in template.items()}
        if isinstance(template, list):
            return [self.json(v) for v in template]
        return template

    def text(self, template: str, *, escape: Callable[[str], str] = str) -> str:
        def fill(match: re.Match) -> str:
            value = self._typed(match.group("name"), match.group("filter"))
            text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            return escape("" if value is None else text)

        return PLACEHOLDER.sub(fill, template)

    def url(self, template: str) -> str:
        return self.text(template, escape=lambda text: quote(text, safe=""))

    def _typed(self, name: str, filter_: str | None) -> Any:
        if name.startswith(SECRET_PREFIX):
            return self.secrets.get(name.removeprefix(SECRET_PREFIX), "")
        if name == ITEM_ID:
            return str(self.item.item_id)
        content = (self.item.data or {}).get(name)
        if content is None:
            return None
        return _TYPED[filter_ or "default"](self, name, content)

    def _as_text(self, name, content) -> str:
        if content.get("content_type") == ContentType.TEXT:
            return content.get("text", "")
        if content.get("content_type") in (ContentType.IMAGE, ContentType.AUDIO):
            return self.media_url(content)
        # parts and conversations as the JSON of their default value
        return json.dumps(self._default(name, content), ensure_ascii=False)

    def _as_number(self, name, content) -> int | float:
        text = self._as_text(name, content).strip()
        try:
            number = float(text)
        except ValueError:
            raise RowError(f"{name!r} is {text[:40]!r}, not a number") from None
        return int(number) if number.is_integer() and "." not in text else number

    def _as_json(self, name, content) -> Any:
        try:
            return json.loads(self._as_text(name, content))
        except ValueError as exc:
            raise RowError(f"{name!r} is not valid JSON ({exc})") from None

    def _as_url(self, name, content) -> str:
        return self._as_text(name, content)

    def _default(self, name, content) -> Any:
        if content.get("content_type") == ContentType.MULTIPART:
            return [self._part(p) for p in content.get("multi_part", [])]
        if content.get("content_type") == ContentType.CONVERSATION:
            return content.get(CONTENT_FIELD[ContentType.CONVERSATION], [])  # OpenAI's messages
        return self._as_text(name, content)

    def _part(self, part: dict) -> dict:
        if part.get("content_type") == ContentType.TEXT:
            return {"type": "text", "text": part.get("text", "")}
        return {"type": part.get("content_type", "").lower(), "url": self.media_url(part)}


_TYPED = {
    "default": Renderer._default,
    "text": Renderer._as_text,
    "number": Renderer._as_number,
    "json": Renderer._as_json,
    "url": Renderer._as_url,
}
