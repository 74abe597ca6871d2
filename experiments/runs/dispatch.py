"""Fair dispatch: which pending chunks get a broker message next.

Chunks are rows first and messages second. A few chunks per queue wait in the broker at a
time (`ASSAY_DISPATCH_AHEAD`), so the broker never holds one workspace's thousands of chunks in
front of another's; whenever a chunk is claimed or finishes, the next ones are picked
round-robin across workspaces — the workspace with the fewest chunks in flight first — and no
workspace has more than `ASSAY_WORKSPACE_MAX_CHUNKS` (by default a worker's pool) queued or
running on one queue. Every dispatch starts the runs launched since, without waiting for their
start task to get a pool process. A small experiment of workspace B therefore starts on the
next free worker while A has runaways.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.db.models import CharField, Count, Exists, F, OuterRef, QuerySet, Value, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from . import dispatch_sql, lifecycle
from .bases import ChunkStatus, RunStatus
from .kinds import RunKind, run_kind_get, run_kinds

DISPATCH_LOCK = 0x4153_5341  # a PostgreSQL advisory lock key ("ASSA")
_EARLIEST = dispatch_sql.EARLIEST


@dataclass(frozen=True)
class _Table:
    """One kind's chunk rows on a queue: its live chunks (running run, no cancel asked, the
    queue's chunk kinds) and the kind of run. Every kind's chunks on a queue share its broker
    budget and each workspace's cap."""

    live: QuerySet
    kind: RunKind

    @property
    def run(self) -> str:
        return self.kind.run_field

    def move(self, chunk_id: int, event: str, **fields) -> bool:
        return lifecycle.chunk_move(self.kind, chunk_id, event, **fields)


def all_queues() -> tuple[str, ...]:
    """Every queue some registered kind sends chunks to."""
    return tuple(sorted({queue for kind in run_kinds() for queue in kind.queues}))


def chunks_dispatch(queues=None) -> list:
    """Mark the next fair chunks of `queues` (all of them by default) queued and return them
    (to be sent)."""
    chosen: list = []
    queues = all_queues() if queues is None else queues
    with transaction.atomic():
        _serialise()
        _begin_launched()
        for queue in queues:
            chosen += _dispatch_queue(queue)
    return chosen


def _serialise() -> None:
    """One dispatcher at a time, so two finishing chunks cannot both fill the same slot."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [DISPATCH_LOCK])
    # SQLite runs every write transaction alone already (IMMEDIATE mode).


def _begin_launched() -> None:
    """Runs launched since (queued, with pending chunks) start here, so their chunks are
    candidates of this very pick. Their start task waits in the default queue for a pool
    process, behind the periodic tasks, while another workspace's chunks hold every process:
    a small run waited for eight of the runaways' chunks to start before its own. One
    statement finds them for every kind."""
    found = [_launched(kind) for kind in run_kinds()]
    now = timezone.now()
    for name, run_id in found[0].union(*found[1:], all=True) if found else []:
        kind = run_kind_get(name)
        if lifecycle.move(kind, run_id, "start", heartbeat_at=now):
            runs = kind.run_model.objects.filter(pk=run_id, started_at__isnull=True)
            runs.update(started_at=now)


def _launched(kind: RunKind) -> QuerySet:
    """(kind name, id) of the kind's queued runs with pending chunks and no cancel asked."""
    pending = kind.chunk_model.objects.filter(
        **{kind.run_field: OuterRef("pk")}, status=ChunkStatus.PENDING
    )
    runs = kind.run_model.objects.filter(
        Exists(pending), status=RunStatus.QUEUED, cancel_requested=False
    )
    named = runs.annotate(kind_name=Value(kind.name, output_field=CharField()))
    return named.order_by().values_list("kind_name", "pk")


def _tables(queue: str) -> list[_Table]:
    running = {"status": RunStatus.RUNNING, "cancel_requested": False}
    tables = []
    for kind in run_kinds():
        if queue not in kind.queues:
            continue
        live = kind.chunk_model.objects.filter(
            **{f"{kind.run_field}__{k}": v for k, v in running.items()}
        )
        if kind.queues[queue]:
            live = live.filter(kind__in=kind.queues[queue])
        tables.append(_Table(live, kind))
    return tables


def _dispatch_queue(queue: str) -> list:
    if connection.vendor == "postgresql":
        return _dispatch_queue_sql(queue)
    return _dispatch_queue_orm(queue)


def _dispatch_queue_sql(queue: str) -> list:
    """The ORM path's picks in fixed statements (`dispatch_sql`): two or three a queue."""
    queued, in_flight, pending = dispatch_sql.queue_read(queue)
    free = settings.ASSAY_DISPATCH_AHEAD - queued
    if free <= 0:
        return []
    picked = _round_robin(dispatch_sql.groups_of(pending, free), in_flight, free)
    return dispatch_sql.picks_move(picked) if picked else []


def _dispatch_queue_orm(queue: str) -> list:
    tables = _tables(queue)
    queued, in_flight = _in_flight(tables)
    free = settings.ASSAY_DISPATCH_AHEAD - queued
    if free <= 0:
        return []
    picked = _round_robin(_waiting_by_workspace(tables, free), in_flight, free)
    now = timezone.now()
    return [chunk for chunk, move in picked if move(chunk.pk, "queue", queued_at=now)]


def _in_flight(tables: list[_Table]) -> tuple[int, dict[int, int]]:
    """(chunks waiting in the broker, chunks queued or running per workspace), one query a
    table."""
    queued, counts = 0, defaultdict(int)
    for table in tables:
        rows = (
            table.live.filter(status__in=[ChunkStatus.QUEUED, ChunkStatus.RUNNING])
            .values_list(f"{table.run}__workspace_id", "status")
            .annotate(n=Count("id"))
        )
        for workspace_id, status, n in rows:
            counts[workspace_id] += n
            queued += n if status == ChunkStatus.QUEUED else 0
    return queued, counts


def _waiting_by_workspace(tables: list[_Table], free: int) -> dict[int, deque]:
    """Each workspace's first `free` pending chunks, the run launched first first, as
    (chunk, move): no pick takes more than `free` from one workspace, so a dispatch reads a
    few rows per workspace however many chunks the runs have."""
    waiting = []
    for order, table in enumerate(tables):
        for chunk in _first_pending(table, free):
            run = getattr(chunk, table.run)
            label = table.kind.chunk_label(getattr(chunk, "kind", None))
            key = (run.queued_at or _EARLIEST, order, run.pk, chunk.index, label)
            waiting.append((key, run.workspace_id, chunk, table.move))
    groups: dict[int, deque] = defaultdict(deque)
    for _key, workspace_id, chunk, move in sorted(waiting, key=lambda entry: entry[0]):
        groups[workspace_id].append((chunk, move))
    return groups


def _first_pending(table: _Table, free: int) -> QuerySet:
    """A table's pending chunks ranked within their workspace (runs by launch, then index),
    the first `free` of each."""
    order = [F(f"{table.run}__queued_at").asc(), F(f"{table.run}_id").asc(), "index", "pk"]
    rank = Window(RowNumber(), partition_by=[F(f"{table.run}__workspace_id")], order_by=order)
    pending = table.live.filter(status=ChunkStatus.PENDING).annotate(rank=rank)
    return pending.filter(rank__lte=free).select_related(table.run)


def _round_robin(groups: dict[int, deque], in_flight: dict[int, int], free: int) -> list:
    """Take one chunk at a time from the workspace with the fewest in flight, under its cap."""
    cap, picked = settings.ASSAY_WORKSPACE_MAX_CHUNKS, []
    while len(picked) < free:
        ready = [w for w, chunks in groups.items() if chunks and in_flight[w] < cap]
        if not ready:
            break
        workspace = min(ready, key=lambda w: in_flight[w])
        picked.append(groups[workspace].popleft())
        in_flight[workspace] += 1
    return picked
