"""Fair dispatch: which pending chunks get a broker message next.

Chunks are rows first and messages second. A few chunks per queue wait in the broker at a
time (`ASSAY_DISPATCH_AHEAD`), so the broker never holds one workspace's thousands of chunks in
front of another's; whenever a chunk is claimed or finishes, the next ones are picked
round-robin across workspaces — the workspace with the fewest chunks in flight first — and no
workspace has more than `ASSAY_WORKSPACE_MAX_CHUNKS` queued or running on one queue. A small
experiment of workspace B therefore starts on the next free worker while A has runaways.
"""

from __future__ import annotations

from collections import defaultdict, deque

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count
from django.utils import timezone

from ..models import ChunkKind, ChunkStatus, ExperimentChunk, ExperimentStatus
from . import lifecycle

QUEUE = {ChunkKind.TARGET: "llm", ChunkKind.LLM: "llm", ChunkKind.CODE: "code"}
KINDS_OF = {"llm": (ChunkKind.TARGET, ChunkKind.LLM), "code": (ChunkKind.CODE,)}
CANDIDATES = 500
DISPATCH_LOCK = 0x4153_5341  # a PostgreSQL advisory lock key ("ASSA")


def chunks_dispatch(queues=tuple(KINDS_OF)) -> list[ExperimentChunk]:
    """Mark the next fair chunks of `queues` queued and return them (to be sent)."""
    chosen: list[ExperimentChunk] = []
    with transaction.atomic():
        _serialise()
        for queue in queues:
            chosen += _dispatch_queue(queue)
    return chosen


def _serialise() -> None:
    """One dispatcher at a time, so two finishing chunks cannot both fill the same slot."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [DISPATCH_LOCK])
    # SQLite runs every write transaction alone already (IMMEDIATE mode).


def _dispatch_queue(queue: str) -> list[ExperimentChunk]:
    live = ExperimentChunk.objects.filter(
        kind__in=KINDS_OF[queue],
        experiment__status=ExperimentStatus.RUNNING,
        experiment__cancel_requested=False,
    )
    queued, in_flight = _in_flight(live)
    free = settings.ASSAY_DISPATCH_AHEAD - queued
    if free <= 0:
        return []
    picked = _round_robin(_waiting_by_workspace(live), in_flight, free)
    now = timezone.now()
    return [c for c in picked if lifecycle.chunk_move(c.pk, "queue", queued_at=now)]


def _in_flight(live) -> tuple[int, dict[int, int]]:
    """(chunks waiting in the broker, chunks queued or running per workspace), one query."""
    rows = (
        live.filter(status__in=[ChunkStatus.QUEUED, ChunkStatus.RUNNING])
        .values_list("experiment__workspace_id", "status")
        .annotate(n=Count("id"))
    )
    queued, counts = 0, defaultdict(int)
    for workspace_id, status, n in rows:
        counts[workspace_id] += n
        queued += n if status == ChunkStatus.QUEUED else 0
    return queued, counts


def _waiting_by_workspace(live) -> dict[int, deque]:
    pending = (
        live.filter(status=ChunkStatus.PENDING)
        .select_related("experiment")
        .order_by("experiment__queued_at", "experiment_id", "index", "kind")[:CANDIDATES]
    )
    groups: dict[int, deque] = defaultdict(deque)
    for chunk in pending:
        groups[chunk.experiment.workspace_id].append(chunk)
    return groups


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
