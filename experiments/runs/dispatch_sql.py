"""Dispatch on PostgreSQL in fixed SQL: one statement reads a queue's chunks in flight per
workspace and each workspace's first pending chunks, one UPDATE a table marks the picks queued.

The ORM said the same (`dispatch._dispatch_queue`, kept for SQLite) in 2 + one-per-pick
statements, and Django compiling its window query and each conditional UPDATE was nearly all of
a dispatch's ~10 ms (PostgreSQL ran them in ~0.1 ms); a chunk dispatches twice. The statements
here are built once per process. The semantics are the ORM's: the same live chunks (running
run, no cancel asked, the queue's kinds), the same rank (run by launch, run, index, pk) within a
workspace, and a move only from pending, so a chunk is never queued twice.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass
from datetime import datetime
from functools import cache

from django.conf import settings
from django.db import connection
from django.utils import timezone

from .bases import ChunkStatus, RunStatus
from .kinds import RunKind, run_kinds

C = ChunkStatus
IN_FLIGHT = (C.QUEUED.value, C.RUNNING.value)
EARLIEST = datetime.min.replace(tzinfo=timezone.get_fixed_timezone(0))


@dataclass(frozen=True)
class SqlTable:
    """A kind's chunk table on a queue: the kind, and the values of its `kind` column that go
    to the queue (() when it has none)."""

    kind: RunKind
    kinds: tuple[str, ...]

    @property
    def model(self) -> type:
        return self.kind.chunk_model

    @property
    def run(self) -> str:
        return self.kind.run_field


@cache
def read_sql(table: SqlTable) -> str:
    """(0, workspace, status, n) per in-flight group, then (1, workspace, rank, id, kind,
    index, run, run's queued_at) for each workspace's first %(ahead)s pending chunks."""
    run_model = table.kind.run_model
    kind = "c.kind" if table.kinds else f"'{table.kind.chunk_label()}'"
    live = (
        f" FROM {table.model._meta.db_table} c JOIN {run_model._meta.db_table} r"
        f" ON r.id = c.{table.run}_id WHERE r.status = '{RunStatus.RUNNING.value}'"
        " AND NOT r.cancel_requested" + (" AND c.kind = ANY(%(kinds)s)" if table.kinds else "")
    )
    order = f"r.queued_at ASC, c.{table.run}_id ASC, c.index ASC, c.id ASC"
    return (
        "SELECT 0, r.workspace_id, count(*), NULL::bigint, c.status, NULL::bigint,"
        f" NULL::bigint, NULL::timestamptz{live} AND c.status IN {IN_FLIGHT}"
        " GROUP BY r.workspace_id, c.status"
        " UNION ALL SELECT 1, workspace_id, rank, id, kind, index, run_id, queued_at FROM"
        f" (SELECT r.workspace_id, c.id, {kind} AS kind, c.index, c.{table.run}_id AS run_id,"
        f" r.queued_at, row_number() OVER (PARTITION BY r.workspace_id ORDER BY {order}) AS rank"
        f"{live} AND c.status = '{C.PENDING.value}') pending WHERE rank <= %(ahead)s"
    )


@cache
def move_sql(table: SqlTable) -> str:
    """The `queue` move of lifecycle.CHUNK_EVENTS (pending → queued) for many chunks at once."""
    return (
        f"UPDATE {table.model._meta.db_table} SET status = '{C.QUEUED.value}',"
        f" queued_at = %(now)s, lease_token = NULL"
        f" WHERE id = ANY(%(ids)s) AND status = '{C.PENDING.value}' RETURNING id"
    )


def queue_read(queue: str) -> tuple[int, dict[int, int], list[tuple]]:
    """(chunks waiting in the broker, chunks in flight per workspace, pending candidates as
    (sort key, workspace, rank, table, values)) of every kind's chunks on `queue`: one
    statement a kind."""
    queued, in_flight, pending = 0, defaultdict(int), []
    with connection.cursor() as cursor:
        for order, table in enumerate(_tables(queue)):
            params = {"kinds": list(table.kinds), "ahead": settings.ASSAY_DISPATCH_AHEAD}
            cursor.execute(read_sql(table), params)
            for part, workspace_id, n, pk, kind, index, run_id, queued_at in cursor.fetchall():
                if part == 0:
                    in_flight[workspace_id] += n
                    queued += n if kind == C.QUEUED else 0
                    continue
                key = (queued_at or EARLIEST, order, run_id, index, str(kind))
                values = {"id": pk, "index": index, f"{table.run}_id": run_id, "kind": kind}
                pending.append((key, workspace_id, n, table, values))
    return queued, in_flight, pending


def _tables(queue: str) -> list[SqlTable]:
    return [SqlTable(k, k.queues[queue]) for k in run_kinds() if queue in k.queues]


def groups_of(pending: list[tuple], free: int) -> dict[int, deque]:
    """Each workspace's candidates in launch order, at most `free` of each table (as the ORM
    path reads them)."""
    groups: dict[int, deque] = defaultdict(deque)
    for _key, workspace_id, rank, table, values in sorted(pending, key=lambda entry: entry[0]):
        if rank <= free:
            groups[workspace_id].append((table, values))
    return groups


def picks_move(picked: list[tuple]) -> list:
    """Mark the picks queued (only those still pending) and return them as chunk instances, in
    pick order."""
    now, moved = timezone.now(), set()
    with connection.cursor() as cursor:
        for table in {table for table, _values in picked}:
            ids = [values["id"] for t, values in picked if t is table]
            cursor.execute(move_sql(table), {"now": now, "ids": ids})
            moved |= {(table, pk) for (pk,) in cursor.fetchall()}
    return [_chunk(t, v, now) for t, v in picked if (t, v["id"]) in moved]


def _chunk(table: SqlTable, values: dict, now) -> object:
    """A chunk instance with what dispatch read (other fields load on access, as deferred)."""
    values = {**values, "status": C.QUEUED.value, "queued_at": now}
    names = [f.attname for f in table.model._meta.concrete_fields if f.attname in values]
    return table.model.from_db(connection.alias, names, [values[n] for n in names])
