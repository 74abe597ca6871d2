"""Writing a mini-batch of results in few round trips: rows are plain tuples, never model
instances, and one upsert writes them all.

On PostgreSQL the rows are COPYed into a temporary staging table and moved by one
`INSERT … SELECT … ON CONFLICT (the results' unique key) DO UPDATE`: three statements for any
number of rows, and no per-field preparation in Python (building `Result` instances and
Django's per-value `get_db_prep_save` were half a code-check chunk's time). Other databases
(SQLite in development and tests) take the same rows through `bulk_create`, which says the
same thing in more statements. Either way, two runners that both found a row missing still
leave exactly one row: the upsert updates the row the other wrote. A target chunk's rows
take the same path into their own staging table (`instances_upsert`, which any model's
instances can take: an online run's outcomes do), conflict on (experiment, item, repeat): a
1,000-row `INSERT … VALUES … ON CONFLICT` was the last step between a target chunk's last call
and its code check.
"""

from __future__ import annotations

import json
import weakref

from django.db import connection, transaction
from django.db.models import JSONField, Q
from django.utils import timezone

from ..models import Result, TargetResult

# The columns a chunk writes, in the order of a row tuple. The rest of a result (human
# corrections, their author and time) is never written by a chunk: an update keeps them.
COLUMNS = (
    "experiment_id",
    "binding_id",
    "item_id",
    "repeat",
    "turn",
    "position",
    "tags",
    "status",
    "score",
    "reason",
    "verdict",
    "error",
    "stdout",
    "latency_ms",
    "tokens_in",
    "tokens_out",
    "cost",
    "rendered_request",
    "raw_answer",
    "attempt",
    "cached",
)
# What an upsert of a row already there changes (the scoring, never the correction).
UPDATED = COLUMNS[COLUMNS.index("status") :]
# Where a row tuple holds what the writes look at.
BINDING, ITEM, REPEAT, TURN = (
    COLUMNS.index(c) for c in ("binding_id", "item_id", "repeat", "turn")
)
TAGS, REQUEST = COLUMNS.index("tags"), COLUMNS.index("rendered_request")
JSON_COLUMNS = frozenset({"tags", "rendered_request"})
STAGE = "assay_result_stage"
# A target chunk's rows, written the same way (COPY, then one upsert on the target's key).
# What a rewrite of a target row sets (never its key or created_at).
TARGET_UPDATE_FIELDS = [
    "status",
    "output",
    "trajectory",
    "conversation",
    "error",
    "rendered_request",
    "raw_response",
    "latency_ms",
    "tokens_in",
    "tokens_out",
    "cost",
    "retry_round",
]
# (raw connection, staging table) pairs that exist (a table lives as long as the session).
_STAGED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def unique_key() -> list[str]:
    """The columns of the results' unique constraint (the upsert's conflict target)."""
    constraint = next(c for c in Result._meta.constraints if c.name == "unique_result")
    return [Result._meta.get_field(name).column for name in constraint.fields]


def results_write(*, rows: list[tuple]) -> None:
    """Insert `rows` (tuples in COLUMNS order) or update the results already there. Runs in
    the caller's transaction, so a mini-batch's rows commit with its lease check."""
    if not rows:
        return
    if connection.vendor != "postgresql":
        _bulk_upsert(rows)
    elif connection.in_atomic_block:
        _copy_upsert(rows)
    else:  # the staging table empties at every commit: COPY and INSERT must share one
        with transaction.atomic():
            _copy_upsert(rows)


def target_results_write(*, rows: list[TargetResult], update_fields: list[str]) -> None:
    """Insert target rows or update `update_fields` of the row already there for (experiment,
    item, repeat): two runners that both called a row still leave exactly one. Runs in the
    caller's transaction, like `results_write`."""
    instances_upsert(
        rows=rows, unique_fields=["experiment", "item", "repeat"], update_fields=update_fields
    )


def instances_upsert(*, rows: list, unique_fields: list[str], update_fields: list[str]) -> None:
    """Insert model instances (all of one model) or update `update_fields` of the row already
    there for `unique_fields`, in the caller's transaction. PostgreSQL: COPY into the model's
    staging table, then one `INSERT … SELECT … ON CONFLICT DO UPDATE` (a 1,000-row
    `INSERT … VALUES` with Django's per-value preparation took 0.13–0.26 s); elsewhere
    `bulk_create`, which says the same in more statements."""
    if not rows:
        return
    model = type(rows[0])
    if connection.vendor != "postgresql":
        model.objects.bulk_create(
            rows,
            batch_size=1000,
            update_conflicts=True,
            unique_fields=unique_fields,
            update_fields=update_fields,
        )
    elif connection.in_atomic_block:
        _instances_copy_upsert(model, rows, unique_fields, update_fields)
    else:  # the staging table empties at every commit: COPY and INSERT must share one
        with transaction.atomic():
            _instances_copy_upsert(model, rows, unique_fields, update_fields)


def stale_turns_delete(*, rows: list[tuple]) -> int:
    """Delete the turns an item no longer has: a row scored again (a retry round, after its
    target answered anew) may have fewer assistant turns than before. Runs in the caller's
    transaction, beside the upsert of `rows`, so the item's turns change at once."""
    last: dict[tuple[int, int, int], int] = {}
    for row in rows:
        key = (row[BINDING], row[ITEM], row[REPEAT])
        last[key] = max(last.get(key, 0), row[TURN])
    if not last:
        return 0
    stale = Q()
    for (binding_id, item_id, repeat), turn in last.items():
        stale |= Q(binding_id=binding_id, item_id=item_id, repeat=repeat, turn__gt=turn)
    deleted, _by_model = Result.objects.filter(experiment_id=rows[0][0]).filter(stale).delete()
    return deleted


# ----------------------------------------------------------------------------- PostgreSQL


def _copy_upsert(rows: list[tuple]) -> None:
    table, columns = Result._meta.db_table, ", ".join(COLUMNS)
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in UPDATED)
    with connection.cursor() as cursor:
        _ensure_stage(cursor, STAGE, table, COLUMNS)
        with cursor.cursor.copy(f"COPY {STAGE} ({columns}) FROM STDIN") as copy:
            for values in _copy_rows(rows):
                copy.write_row(values)
        # the staging table empties at commit; a rolled-back batch leaves nothing either
        # one round trip: the move, then the staging table emptied for the next batch of this
        # transaction (it also empties at commit, and a rollback leaves nothing)
        cursor.execute(
            f"INSERT INTO {table} ({columns}, human_verdict, correction_note)"
            f" SELECT {columns}, '', '' FROM {STAGE}"
            f" ON CONFLICT ({', '.join(unique_key())}) DO UPDATE SET {updates};"
            f" DELETE FROM {STAGE}"
        )


def _copy_rows(rows: list[tuple]):
    """The rows as COPY takes them: JSON columns as JSON text (COPY would send a Python list
    as an array). A chunk's rows share their item's tag list (one per distinct tags), so each
    distinct list is encoded once; `rows` keeps every list alive, so no id is reused meanwhile."""
    encoded: dict[int, str] = {}
    for row in rows:
        tags, request = row[TAGS], row[REQUEST]
        if (text := encoded.get(id(tags))) is None:
            text = encoded[id(tags)] = json.dumps(tags or [])
        yield (
            *row[:TAGS],
            text,
            *row[TAGS + 1 : REQUEST],
            None if request is None else json.dumps(request),
            *row[REQUEST + 1 :],
        )


def _instances_copy_upsert(model, rows: list, unique: list[str], updated: list[str]) -> None:
    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    table, columns = model._meta.db_table, ", ".join(f.column for f in fields)
    stage = f"assay_stage_{table}"
    conflict = ", ".join(model._meta.get_field(name).column for name in unique)
    set_columns = (model._meta.get_field(name).column for name in updated)
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in set_columns)
    now = timezone.now()
    with connection.cursor() as cursor:
        _ensure_stage(cursor, stage, table, [f.column for f in fields])
        with cursor.cursor.copy(f"COPY {stage} ({columns}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(_copy_values(row, fields, now))
        cursor.execute(
            f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {stage}"
            f" ON CONFLICT ({conflict}) DO UPDATE SET {updates};"
            f" DELETE FROM {stage}"
        )


def _copy_values(row, fields, now) -> tuple:
    """An instance as COPY takes it: JSON fields as JSON text (NULL stays NULL), an unset
    creation time as `now` (what `auto_now_add` would have set)."""
    values = []
    for field in fields:
        value = getattr(row, field.attname)
        if value is not None and isinstance(field, JSONField):
            value = json.dumps(value)
        elif value is None and getattr(field, "auto_now_add", False):
            value = now
        values.append(value)
    return tuple(values)


def _ensure_stage(cursor, stage: str, table: str, columns) -> None:
    """The session's staging table: created once per connection, emptied at every commit."""
    raw = connection.connection
    if stage in _STAGED.get(raw, ()):
        return
    cursor.execute(
        f"CREATE TEMPORARY TABLE IF NOT EXISTS {stage} ON COMMIT DELETE ROWS AS"
        f" SELECT {', '.join(columns)} FROM {table} WITH NO DATA"
    )
    # a table created in a transaction that rolls back is gone: remember it once committed
    transaction.on_commit(lambda: _STAGED.setdefault(raw, set()).add(stage))


# ----------------------------------------------------------------------------- elsewhere


def _bulk_upsert(rows: list[tuple]) -> None:
    Result.objects.bulk_create(
        [Result(**dict(zip(COLUMNS, row, strict=True))) for row in rows],
        batch_size=500,
        update_conflicts=True,
        unique_fields=[Result._meta.get_field(c).name for c in unique_key()],
        update_fields=[c.removesuffix("_id") for c in UPDATED],
    )
