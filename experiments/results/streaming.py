"""What the streamed exports share: one server-side cursor over an experiment's results with the
stored parts of each result's turn beside it — the item's data and the target's output, JSON
as text — so a million rows cost one statement and no model instance, and JSON written by
orjson.

The SQL is plain (a join, a left join, CAST … AS TEXT), the same on PostgreSQL and SQLite;
tables and columns are named from the models.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from contextlib import nullcontext

import orjson
from django.db import connection, transaction
from django.db.models import JSONField, UUIDField

from assay.vocabulary import Verdict
from evalsets.models import EvalSetItem

from ..models import Experiment, Result, TargetResult
from ..scoring.turns import json_loads

# Rows fetched from the server-side cursor at a time.
FETCH_ROWS = 2000
# What the turn is rebuilt from, after the result's own columns (TurnRebuilder.turn's order).
TURN_PARTS = 5  # the item's data, the target's status, output, trajectory and conversation


def result_rows(
    *,
    experiment: Experiment,
    columns: tuple[str, ...],
    order: tuple[str, ...],
    binding_id: int | None = None,
    failing: bool = False,
    target_columns: tuple[str, ...] = (),
) -> Iterator[tuple]:
    """The experiment's results in `order` as tuples: `columns` (Result field names, or
    ITEM_COLUMNS; JSON and UUID fields as text), then the TURN_PARTS, then `target_columns`
    (TargetResult fields of the row and repetition; None without a target row). `binding_id`
    keeps one binding's results, `failing` those whose final verdict is a fail."""
    sql, params = _query(experiment, columns, order, (binding_id, failing), target_columns)
    with _streaming(), connection.chunked_cursor() as cursor:  # server-side on PostgreSQL
        cursor.execute(sql, params)
        yield from _prefetched(cursor)


def _streaming():
    """A transaction around the read on PostgreSQL: outside one, the named cursor is declared
    WITH HOLD, and the server computes and stores every row before sending the first, so
    neither streams. The transaction only reads; closing the stream rolls it back."""
    return transaction.atomic() if connection.vendor == "postgresql" else nullcontext()


def _prefetched(cursor) -> Iterator[tuple]:
    """The cursor's rows; a thread reads the next FETCH_ROWS while these are written, so the
    database's work and ours overlap (psycopg and sqlite3 release the GIL while they wait).
    At most two batches are held; closing the stream stops the thread."""
    batches: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()
    reader = threading.Thread(target=_fetch, args=(cursor, batches, stop), daemon=True)
    reader.start()
    try:
        while (batch := batches.get()) is not None:
            if isinstance(batch, Exception):
                raise batch
            yield from batch
    finally:
        stop.set()
        reader.join()


def _fetch(cursor, batches: queue.Queue, stop: threading.Event) -> None:
    """The reader thread: batches into the queue, then None (or the error it met)."""
    try:
        while rows := cursor.fetchmany(FETCH_ROWS):
            if not _put(batches, rows, stop):
                return
        _put(batches, None, stop)
    except Exception as exc:  # raised again in the stream's thread
        _put(batches, exc, stop)


def _put(batches: queue.Queue, item, stop: threading.Event) -> bool:
    """Put `item` unless the stream was closed meanwhile (then nobody takes it)."""
    while not stop.is_set():
        try:
            batches.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


def _query(experiment, columns, order, only, target_columns) -> tuple[str, list]:
    binding_id, failing = only
    where, params = [f"r.{_column(Result, 'experiment')} = %s"], [experiment.pk]
    if binding_id is not None:
        where.append(f"r.{_column(Result, 'binding')} = %s")
        params.append(binding_id)
    if failing:  # Result.final_verdict: the human's verdict, else the evaluator's
        human, verdict = _column(Result, "human_verdict"), _column(Result, "verdict")
        where.append(f"(r.{human} = %s OR (r.{human} = '' AND r.{verdict} = %s))")
        params += [Verdict.FAIL, Verdict.FAIL]
    select = ", ".join(
        [
            *(_result_column(name) for name in columns),
            *_turn_parts(experiment),
            *_target_columns(experiment, target_columns),
        ]
    )
    ordering = ", ".join(f"r.{_column(Result, name)}" for name in order)
    sql = f"SELECT {select} FROM {_joins(experiment)} WHERE {' AND '.join(where)}"
    return f"{sql} ORDER BY {ordering}", params


def _joins(experiment: Experiment) -> str:
    """The results, their items and, for a target that produces output, its stored output
    of the same item and repetition (at most one: a unique key)."""
    r, i, t = Result._meta.db_table, EvalSetItem._meta.db_table, TargetResult._meta.db_table
    item, repeat = _column(Result, "item"), _column(Result, "repeat")
    joins = f"{r} r JOIN {i} i ON i.{_column(EvalSetItem, 'id')} = r.{item}"
    if experiment.target_spec.produces_output:
        joins += (
            f" LEFT JOIN {t} t ON t.{_column(TargetResult, 'experiment')} = r."
            f"{_column(Result, 'experiment')} AND t.{_column(TargetResult, 'item')} = r.{item}"
            f" AND t.{_column(TargetResult, 'repeat')} = r.{repeat}"
        )
    return joins


def _turn_parts(experiment: Experiment) -> list[str]:
    data = f"CAST(i.{_column(EvalSetItem, 'data')} AS TEXT)"
    if not experiment.target_spec.produces_output:
        return [data, "NULL", "NULL", "NULL", "NULL"]
    conversation = f"CAST(t.{_column(TargetResult, 'conversation')} AS TEXT)"
    names = ("status", "output", "trajectory")
    return [data, *(f"t.{_column(TargetResult, n)}" for n in names), conversation]


def _target_columns(experiment: Experiment, names: tuple[str, ...]) -> list[str]:
    if not experiment.target_spec.produces_output:
        return ["NULL"] * len(names)
    return [f"t.{_column(TargetResult, name)}" for name in names]


# Columns read from the result's item (joined anyway for its data), by the name rows use.
ITEM_COLUMNS = {"item_uid": "item_id"}  # the item's stable id: not copied into results


def _result_column(name: str) -> str:
    if name in ITEM_COLUMNS:
        return f"CAST(i.{_column(EvalSetItem, ITEM_COLUMNS[name])} AS TEXT)"
    field = Result._meta.get_field(name)
    if isinstance(field, JSONField | UUIDField):  # text: parsed once, by orjson
        return f"CAST(r.{_column(Result, name)} AS TEXT)"
    return f"r.{_column(Result, name)}"


def _column(model, name: str) -> str:
    return connection.ops.quote_name(model._meta.get_field(name).column)


def target_parts(parts: tuple) -> tuple | None:
    """The target's (status, output, trajectory, conversation) of a row's TURN_PARTS, None
    when it stored none (the left join found no row)."""
    return None if parts[1] is None else parts[1:]


def uuid_text(value: str) -> str:
    """A UUID column read as text, hyphenated (SQLite stores 32 hex digits)."""
    if len(value) == 32:
        return f"{value[:8]}-{value[8:12]}-{value[12:16]}-{value[16:20]}-{value[20:]}"
    return value


def json_list(text: str | None) -> list | None:
    return None if text is None else json_loads(text)


def chunked(lines: Iterator, size: int) -> Iterator[str]:
    """Lines (str, or UTF-8 bytes) joined `size` at a time. Each row is written to its line
    as soon as it is built and only lines are held: holding a chunk's rows (dicts, turns)
    until the chunk is written cost more than writing them."""
    batch: list = []
    for line in lines:
        batch.append(line)
        if len(batch) == size:
            yield _joined(batch)
            batch = []
    if batch:
        yield _joined(batch)


def _joined(batch: list) -> str:
    return b"".join(batch).decode() if isinstance(batch[0], bytes) else "".join(batch)


def dumps(value) -> bytes:
    """JSON by orjson (compact, UTF-8); what it refuses (an integer past 64 bits, a lone
    surrogate) by json, escaped so that the line is valid UTF-8 whatever it holds."""
    try:
        return orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(value).encode()
