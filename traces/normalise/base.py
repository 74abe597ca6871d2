"""The normaliser interface: one convention's attributes and events → a span's typed columns.

A normaliser only fills fields still empty (`Fields.put`), so the registry's order says which
convention wins when a span speaks two (OpenInference first: it is the more explicit one).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class SpanSource:
    """A span as the normalisers see it: full attribute values (not yet capped), its events
    as (name, attributes), and the resource's attributes."""

    name: str
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)


class Fields(dict):
    """The typed columns found so far; the first convention to give a field keeps it."""

    def put(self, key: str, value: Any) -> None:
        if value in (None, "", [], {}) or self.get(key) not in (None, ""):
            return
        self[key] = value


class Normaliser(Protocol):
    name: str

    def applies(self, span: SpanSource) -> bool:
        """Whether the span speaks this convention."""

    def fill(self, span: SpanSource, fields: Fields) -> None:
        """Put what the convention says into `fields` (kind, model, input_text, output_text,
        input_messages, output_messages as plain message lists, tokens_in, tokens_out, cost,
        session_id, user_id, error)."""


def text_of(value: Any) -> str:
    """A value as display text: strings as they are, anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def json_value(value: Any) -> Any:
    """A JSON-encoded attribute decoded (conventions send message lists as JSON strings);
    anything unreadable is None."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return None


def whole(value: Any) -> int | None:
    """A token count as an int, or None when it is not a whole non-negative number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return int(value) if value == int(value) else None


def number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)
