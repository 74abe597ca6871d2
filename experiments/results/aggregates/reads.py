"""One binding's results read for the aggregates: what is counting is counted by the database
(one GROUP BY over tag set, verdict and status: counts, token sums, corrections), and only what
needs a value a row — scores, latencies, costs; with repetitions also each row's item, verdict
and tag set — is read, a chunk at a time, into numpy arrays.

The per-row values stay in Python because the numbers they make must not move: the mean, the
histogram (numpy's bin edges, which `width_bucket` places differently at 0.3, 0.6, 0.7), the
latency percentiles and the cost total (a float sum in row order) are exactly those of the
rows read one by one, and the seeded bootstraps resample the same rows in the same order.
With repetitions the rows are read anyway, so their tag sets come with them (a small number
each) and the per-item tag cells are grouped in numpy instead of by a second scan. Every query is
ORM, so SQLite runs the same path as PostgreSQL, but for one thing: there a row's tag list
is read as its jsonb hash rather than its text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from django.db import connections
from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    ExpressionWrapper,
    F,
    FloatField,
    Func,
    IntegerField,
    Min,
    Q,
    QuerySet,
    Sum,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast

from assay.vocabulary import Verdict

from ...stats.columns import (
    READ_CHUNK,
    KeyCodes,
    RowColumns,
    codes_among,
    columns_of,
    first_seen_index,
)
from ...stats.tags import row_tag_cells, tag_breakdown, tag_set, tag_sets

DECIDED = (Verdict.PASS, Verdict.FAIL)
# repetitions per position in the row key (a repeat is a PositiveSmallIntegerField)
REPEAT_SPAN = 1 << 16
# the jsonb hash of each tag list given as text, in their order
TAG_HASHES = """
SELECT jsonb_hash(list::jsonb) FROM unnest(%s::text[]) WITH ORDINALITY AS lists(list, n)
ORDER BY n
"""


def corrected_q() -> Q:
    """Results a human corrected."""
    return ~Q(human_verdict="")


def final_verdict_in(verdicts) -> Q:
    """Results whose verdict, after a human's correction, is one of `verdicts`."""
    return Q(human_verdict__in=verdicts) | (Q(human_verdict="") & Q(verdict__in=verdicts))


def final_code() -> Case:
    """The verdict after a human's correction as a code: 0 pass, 1 fail, 2 unknown."""
    return Case(
        When(final_verdict_in([Verdict.PASS]), then=Value(0)),
        When(final_verdict_in([Verdict.FAIL]), then=Value(1)),
        default=Value(2),
        output_field=IntegerField(),
    )


def final_score() -> Case:
    """The human's score where a human gave a verdict and a score, else the evaluator's."""
    return Case(
        When(corrected_q() & Q(human_score__isnull=False), then=F("human_score")),
        default=F("score"),
        output_field=FloatField(),
    )


def row_key() -> ExpressionWrapper:
    """A per-row binding's row order as one number: the dashboard's (position), then the
    repetition, so that a seeded bootstrap meets the same rows in the same order every time
    (sorting in numpy lets the database scan instead of walking an index)."""
    return ExpressionWrapper(
        F("position") * REPEAT_SPAN + F("repeat"), output_field=BigIntegerField()
    )


def tags_text() -> Cast:
    """A result's tags as JSON text: equal tag lists group together, and are parsed once."""
    return Cast("tags", TextField())


def result_columns(results: QuerySet, *, clustered: bool) -> RowColumns:
    """A binding's results as `RowColumns`: the counts from the database, a score, latency and
    cost a row (`clustered`: also each row's item, verdict and tag set, whose per-item tag
    cells are grouped from those arrays rather than by another scan)."""
    counted = _tally(results)
    # a cost column of NULLs (a code check has no price) is not worth reading
    priced = counted.pop("priced") > 0
    texts = counted.pop("tag_texts")
    read = _row_values(results, clustered=clustered, priced=priced, tag_texts=texts)
    columns = RowColumns(
        **counted,
        scores=read["scores"],
        latencies=read["latencies"],
        costs=read.get("costs", np.zeros(0)),
    )
    if clustered:
        columns.items, columns.codes = read["items"], read["codes"]
        columns.tag_cells = row_tag_cells(
            read["items"], read["tag_sets"], read["sets"](), read["codes"]
        )
    return columns


def _row_values(results: QuerySet, *, clustered: bool, priced: bool, tag_texts: list) -> dict:
    """The per-row columns in row order: scores and latencies, costs if `priced`; with
    `clustered` each row's item (first-seen index), verdict code and tag set (an index into
    what `sets()` returns). Read unordered (a plain scan), then sorted here."""
    columns = {
        "keys": (row_key(), np.int64),
        "scores": (final_score(), np.float64),
        "latencies": ("latency_ms", np.float64),
    }
    if priced:
        columns["costs"] = ("cost", np.float64)
    if clustered:
        tags = _tag_set_column(results, tag_texts)
        columns |= {
            "items": ("item_id", np.int64),
            "codes": (final_code(), np.int8),
            "tag_sets": (tags.field, tags.kind),
        }
    rows = results.order_by().values_list(*(field for field, _kind in columns.values()))
    arrays = columns_of(row_chunks(rows), [kind for _field, kind in columns.values()])
    read = _in_row_order(dict(zip(columns, arrays, strict=True)))
    del arrays
    if clustered:
        read["items"] = first_seen_index(read.pop("items"))[0].astype(np.int32)
        read["tag_sets"], read["sets"] = tags.decode(read["tag_sets"]), tags.sets
    return read


@dataclass
class TagColumn:
    """How each row's tag set is read (`field`, `kind` for `columns_of`), how the column read
    becomes codes (`decode`), and the tag set of each code (`sets()`, once the rows are read)."""

    field: object
    kind: object
    sets: Callable[[], list[tuple[str, ...]]]
    decode: Callable[[np.ndarray], np.ndarray]


def _in_row_order(read: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The columns sorted by their row key (`keys`, then dropped), one at a time so that only
    one unsorted copy is alive; rows read in order already are left as they are."""
    keys = read.pop("keys")
    if keys.size < 2 or (keys[1:] >= keys[:-1]).all():
        return read
    order = np.argsort(keys, kind="stable")
    for name in read:
        read[name] = read[name][order]
    return read


def _tag_set_column(results: QuerySet, texts: list[str]) -> TagColumn:
    """On PostgreSQL a row's tag set is read as the hash of its jsonb (a number a row, where
    the list's text costs a third of the read), told apart by the hashes of the tally's
    distinct lists; else, or if two of those share a hash, as its JSON text coded by value."""
    hashes = _tag_hashes(results, texts)
    if hashes is None or len(set(hashes)) < len(hashes):
        codes = KeyCodes()
        return TagColumn(tags_text(), codes, lambda: _parsed(codes.keys), lambda read: read)
    # a row whose list is none of these (written after the tally) counts without tags
    sets, known = [*_parsed(texts), ()], np.asarray(hashes, dtype=np.int64)
    return TagColumn(JsonbHash("tags"), np.int32, lambda: sets, lambda h: codes_among(h, known))


def _parsed(texts: list[str]) -> list[tuple[str, ...]]:
    return [tag_set(json.loads(text)) for text in texts]


def _tag_hashes(results: QuerySet, texts: list[str]) -> list[int] | None:
    """PostgreSQL's jsonb hash of each tag list (JSON text); None on another database."""
    connection = connections[results.db]
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(TAG_HASHES, [texts])
        return [row[0] for row in cursor.fetchall()]


class JsonbHash(Func):
    """PostgreSQL's own hash of a jsonb value (its hash indexes'): equal lists hash alike."""

    function = "jsonb_hash"
    output_field = IntegerField()


def row_chunks(rows: QuerySet, *, size: int = READ_CHUNK) -> Iterator[list[tuple]]:
    """A `values_list` query's rows, `size` at a time, through Django's chunked cursor
    (server-side on PostgreSQL): the driver's numbers and text as they come, without the
    per-row conversions of `iterator()` (a third of the read at 10⁶ rows)."""
    connection = connections[rows.db]
    sql, params = rows.query.sql_with_params()
    server_side = not connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")
    with connection.chunked_cursor() if server_side else connection.cursor() as cursor:
        cursor.execute(sql, params)
        while chunk := cursor.fetchmany(size):
            yield chunk


def _tally(results: QuerySet) -> dict:
    """Rows per verdict, status and tag, tokens, corrections and priced rows, and the distinct
    tag lists (JSON text), from the groups of `_tally_groups`."""
    groups = _transposed(list(_tally_groups(results)))
    texts, codes, statuses, rows, tokens_in, tokens_out, corrected, priced = groups
    set_index, sets = tag_sets(texts, parse=json.loads)
    codes, rows = np.asarray(codes, dtype=np.intp), np.asarray(rows, dtype=np.int64)
    return {
        "counts": np.bincount(codes, weights=rows, minlength=3).astype(np.int64),
        "statuses": _per_status(statuses, rows),
        "tags": tag_breakdown(set_index, sets, codes, rows),
        "tokens_in": sum(n or 0 for n in tokens_in),
        "tokens_out": sum(n or 0 for n in tokens_out),
        "corrected": sum(corrected),
        "priced": sum(priced),
        "tag_texts": list(dict.fromkeys(texts)),
    }


def _tally_groups(results: QuerySet) -> QuerySet:
    """One GROUP BY over (tag set, verdict, status): rows, token sums, corrected and priced
    rows per group, groups in the order of their first row."""
    return (
        results.order_by()
        .annotate(tag_text=tags_text(), code=final_code())
        .values("tag_text", "code", "status")
        .annotate(
            first=Min("position"),
            rows=Count("pk"),
            t_in=Sum("tokens_in"),
            t_out=Sum("tokens_out"),
            fixed=Count("pk", filter=corrected_q()),
            priced=Count("cost"),
        )
        .order_by("first")
        .values_list("tag_text", "code", "status", "rows", "t_in", "t_out", "fixed", "priced")
    )


def _transposed(groups: list[tuple]) -> list[tuple]:
    """The groups' columns (eight empty ones without a group)."""
    return list(zip(*groups, strict=True)) if groups else [()] * 8


def _per_status(statuses: tuple, rows: np.ndarray) -> dict[str, int]:
    """Rows per status, statuses in the order of their first row."""
    counts: dict[str, int] = {}
    for status, n in zip(statuses, rows, strict=True):
        counts[status] = counts.get(status, 0) + int(n)
    return counts
