"""Keyset (cursor) paging for the trace and span lists: a page is "the next N rows after this
one in the sort order", found by the sort column's index whatever the page's depth (an offset
would read and skip every row before it, and a page count would count millions of rows).

A cursor is the last row's sort value and tie-breaking id, base64url JSON; it is opaque to
clients, and a cursor that does not decode is `BadCursor` (the API's 400)."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db.models import Field, Model, Q, QuerySet


class BadCursor(ValueError):
    """The cursor was not made by this list."""


@dataclass(frozen=True)
class Order:
    """A sort column, the column that breaks its ties (unique with it), and the direction."""

    field: str
    tie: str
    descending: bool = True
    # how the sort value is read back from a cursor when it is an annotation, not a column
    value_field: Field | None = None

    def order_by(self) -> list[str]:
        sign = "-" if self.descending else ""
        return [f"{sign}{self.field}", f"{sign}{self.tie}"]

    def after(self, value, tie) -> Q:
        """Rows after (value, tie) in this order. The plain bound on the sort column comes
        first so the index scan starts at the cursor instead of filtering up to it."""
        op = "lt" if self.descending else "gt"
        bound = Q(**{f"{self.field}__{op}e": value})
        return bound & (
            Q(**{f"{self.field}__{op}": value}) | Q(**{self.field: value, f"{self.tie}__{op}": tie})
        )


def cursor_encode(row, order: Order) -> str:
    value, tie = _get(row, order.field), _get(row, order.tie)
    text = value.isoformat() if hasattr(value, "isoformat") else value
    raw = json.dumps([text, tie], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def cursor_decode(cursor: str, order: Order, model: type[Model]) -> tuple:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        text, tie = json.loads(raw)
        value = (order.value_field or model._meta.get_field(order.field)).to_python(text)
        tie = model._meta.get_field(order.tie).to_python(tie)
    except (binascii.Error, ValueError, TypeError, ValidationError) as exc:
        raise BadCursor("This cursor is not one of this list's.") from exc
    if value is None or tie is None:
        raise BadCursor("This cursor is not one of this list's.")
    return value, tie


def page_after(
    rows: QuerySet, *, order: Order, cursor: str | None, size: int
) -> tuple[list, str | None]:
    """The `size` rows after the cursor (from the start without one) and the next page's
    cursor (None on the last page)."""
    if cursor:
        rows = rows.filter(order.after(*cursor_decode(cursor, order, rows.model)))
    found = list(rows.order_by(*order.order_by())[: size + 1])
    following = cursor_encode(found[size - 1], order) if len(found) > size else None
    return found[:size], following


def _get(row, name: str):
    return row[name] if isinstance(row, dict) else getattr(row, name)
