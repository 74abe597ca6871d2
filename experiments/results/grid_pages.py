"""Pages of the results grid without counting or sorting every row: keyset pages and a
text search that finds rare text through indexes.

A page starts after (or ends before) one row's place in the display order — its position,
or (sort key, position) when sorted — so page 400 costs what page 1 costs: the query walks an
index from that place instead of skipping 19,950 rows. A page never counts the rows that
match its filters: an unfiltered grid's count is the version's stored row count, a filtered
one counts up to COUNT_CAP matches and says "more" beyond.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db.models import F, Q, QuerySet
from django.utils.translation import gettext as _

from ..models import Experiment

COUNT_CAP = 1000  # matches a filtered page counts before it says "more than"


@dataclass(frozen=True)
class Order:
    """How the grid's rows are ordered: by `grid_key` first when sorted (descending for a
    score ↓; None sorts last either way), then by `grid_pos`. A key of a few `ranks` (a
    verdict's) is walked rank by rank in row order, so no page sorts the rows."""

    sorted: bool = False
    descending: bool = False
    ranks: tuple[int, ...] = ()


@dataclass
class GridPage:
    """One page of item pks, and where the pages beside it start (cursors, "" for none)."""

    item_pks: list[int]
    after: str = ""  # the Next link's cursor
    before: str = ""  # the Previous link's cursor
    number: int | None = None  # the page's number, where it is known without counting
    pages: int | None = None
    count: int | None = None  # rows in all, where it is known (stored, or under the cap)
    more_than: int | None = None  # a filtered grid's matches beyond COUNT_CAP
    first_pos: int | None = None  # the first row's position


def keyset_page(
    *,
    rows: QuerySet,
    order: Order,
    size: int,
    after: str = "",
    before: str = "",
    number: int = 1,
) -> tuple[list[dict], bool, bool]:
    """(the page's rows as values, more after it, more before it) of `rows` (values with
    grid_item, grid_pos and, sorted, grid_key, in `order`)."""
    if order.ranks and (after or before or number <= 1):
        return _ranked_page(rows, order, size, after=after, before=before)
    if before:
        found = list(_before(rows, order, decode(before, order))[: size + 1])
        return list(reversed(found[:size])), True, len(found) > size
    start = 0
    if after:
        rows = _after(rows, order, decode(after, order))
    elif number > 1:  # a page number (typed, or an old link): skips rows, kept for links
        start = (number - 1) * size
    found = list(rows[start : start + size + 1])
    return found[:size], len(found) > size, bool(after) or start > 0


def _ranked_page(rows: QuerySet, order: Order, size: int, *, after: str, before: str):
    """A page of rows ranked by a key of few values: one walk in row order per rank (each an
    index walk with a filter), from the cursor's rank on (back to the first, for before)."""
    key, pos = decode(before or after, order) if (before or after) else (None, -1)
    ranks = order.ranks[::-1] if before else order.ranks
    found: list[dict] = []
    for rank in ranks:
        if key is not None and (rank > key if before else rank < key):
            continue
        part = rows.filter(grid_key=rank)
        if rank == key:
            part = part.filter(grid_pos__lt=pos) if before else part.filter(grid_pos__gt=pos)
        part = part.order_by("-grid_pos") if before else part.order_by("grid_pos")
        found += list(part[: size + 1 - len(found)])
        if len(found) > size:
            break
    more, page = len(found) > size, found[:size]
    if before:
        return list(reversed(page)), True, more
    return page, more, bool(after)


def _after(rows: QuerySet, order: Order, cursor: tuple) -> QuerySet:
    key, pos = cursor
    if not order.sorted:
        return rows.filter(grid_pos__gt=pos)
    if key is None:  # among the rows without a key, which come last
        return rows.filter(grid_key__isnull=True, grid_pos__gt=pos)
    beyond = Q(grid_key__lt=key) if order.descending else Q(grid_key__gt=key)
    return rows.filter(beyond | Q(grid_key=key, grid_pos__gt=pos) | Q(grid_key__isnull=True))


def _before(rows: QuerySet, order: Order, cursor: tuple) -> QuerySet:
    """The rows before the cursor, nearest first (the caller turns them round)."""
    key, pos = cursor
    if not order.sorted:
        return rows.filter(grid_pos__lt=pos).order_by("-grid_pos")
    back = [_reversed_key(order), F("grid_pos").desc()]
    if key is None:
        keyed = Q(grid_key__isnull=False) | Q(grid_key__isnull=True, grid_pos__lt=pos)
        return rows.filter(keyed).order_by(*back)
    nearer = Q(grid_key__gt=key) if order.descending else Q(grid_key__lt=key)
    return rows.filter(nearer | Q(grid_key=key, grid_pos__lt=pos)).order_by(*back)


def _reversed_key(order: Order):
    key = F("grid_key")
    return key.asc(nulls_first=True) if order.descending else key.desc(nulls_first=True)


def encode(row: dict, order: Order) -> str:
    """A row's place as a cursor: its position, or "key:position" when sorted."""
    if not order.sorted:
        return str(row["grid_pos"])
    key = row["grid_key"]
    return f"{'none' if key is None else repr(float(key))}:{row['grid_pos']}"


def decode(cursor: str, order: Order) -> tuple:
    """(key, position) of a cursor; a ValidationError naming `after` for a malformed one."""
    try:
        key, _sep, pos = cursor.rpartition(":") if order.sorted else ("", "", cursor)
        value = None if key in ("", "none") else float(key)
        if value is not None and not math.isfinite(value):
            raise ValueError(key)
        return value, int(pos)
    except ValueError:
        raise ValidationError({"after": _("This page link is not valid; start again.")}) from None


def page_of(
    *,
    experiment: Experiment,
    rows: QuerySet,
    order: Order,
    size: int,
    unfiltered: bool,
    after: str = "",
    before: str = "",
    number=None,
) -> GridPage:
    """The page of `rows` after or before a cursor, or by number, with its count: stored when
    every row is shown in row order (whose page numbers are positions), else counted up to
    COUNT_CAP."""
    total = experiment.evalset_version.item_count
    number = page_number(number)
    if unfiltered and not (after or before) and number > 1:
        after = str(first_position(min(number, math.ceil(total / size)), size) - 1)
    at = {"after": after, "before": before, "number": number}
    page = _page(*keyset_page(rows=rows, order=order, size=size, **at), order)
    if unfiltered:
        _numbered(page, total, size)
    else:
        page.number = number if not (after or before) else None
        _capped_count(page, rows)
    return page


def _page(found: list[dict], more_after: bool, more_before: bool, order: Order) -> GridPage:
    """The page of these rows, with the cursors of the pages beside it."""
    page = GridPage(item_pks=_distinct(r["grid_item"] for r in found))
    page.first_pos = found[0]["grid_pos"] if found else None
    if found and more_after:
        page.after = encode(found[-1], order)
    if found and more_before:
        page.before = encode(found[0], order)
    return page


def _numbered(page: GridPage, total: int, size: int) -> None:
    """Every row in row order: positions run 0…n-1, so a row's place is its position."""
    page.count, page.pages = total, max(1, math.ceil(total / size))
    page.number = page.first_pos // size + 1 if page.first_pos is not None else 1


def _capped_count(page: GridPage, rows: QuerySet) -> None:
    # in row order, as a page walks: unordered, the planner may walk another index whose
    # first rows all fail the filters; by a sort key, it would sort every row to count
    n = rows.order_by("grid_pos")[: COUNT_CAP + 1].count()
    if n > COUNT_CAP:
        page.more_than = COUNT_CAP
    else:
        page.count = n


def _distinct(pks) -> list[int]:
    """Item pks once each, in order (a row's several turns are several results)."""
    return list(dict.fromkeys(pks))


def first_position(number: int, size: int) -> int:
    """Row order: page `number` starts at this position (a version's positions have no gaps)."""
    return (max(1, number) - 1) * size


def page_number(raw) -> int:
    """A page number from a query string (1 for anything else)."""
    try:
        return max(1, int(raw))
    except (TypeError, ValueError):
        return 1
