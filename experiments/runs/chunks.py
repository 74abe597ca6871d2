"""A chunk of any kind of run: begin the run, claim a chunk under a lease, run the kind's work,
commit each mini-batch with its checks, complete once.

Every function is safe to run twice: a kind's work computes only what is missing and upserts
it, and every status change is a conditional move (`lifecycle`).
"""

from __future__ import annotations

import uuid

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from assay.safety.caps import ERROR_BYTES, cap_text
from evaluators.runner import RunCancelled

from . import lifecycle
from .bases import ChunkStatus
from .dispatch import chunks_dispatch
from .finish import run_fail, run_finalize_if_done, run_settle_cancel
from .kinds import RunKind, run_kind_of
from .leases import ChunkLease


class ChunkStopped(Exception):
    """This runner must stop: cancel was asked, or its lease or the run moved on."""


def run_begin(kind: RunKind, *, run_id: int) -> list:
    """queued → running (or keep running); return the chunks dispatched now."""
    now = timezone.now()
    if not lifecycle.move(kind, run_id, "start", heartbeat_at=now):
        return []
    kind.run_model.objects.filter(pk=run_id, started_at__isnull=True).update(started_at=now)
    unfinished = kind.chunk_model.objects.filter(
        **{f"{kind.run_field}_id": run_id, "status__in": lifecycle.UNFINISHED_CHUNKS}
    )
    if not unfinished.exists():
        run_finalize_if_done(kind, run_id=run_id)
        return []
    return chunks_dispatch()


def chunk_claim(kind: RunKind, *, chunk_id: int) -> tuple[object, uuid.UUID] | None:
    """Take a chunk under a fresh lease, or None when it is done or someone holds it."""
    token = lifecycle.claim(kind, chunk_id)
    if token is None:
        return None
    related = (kind.run_field, *kind.claim_related)
    return kind.chunk_model.objects.select_related(*related).get(pk=chunk_id), token


def chunk_unclaimable_reason(kind: RunKind, *, chunk_id: int) -> str:
    """Why a delivered chunk was not taken (for the task's result and logs)."""
    rows = kind.chunk_model.objects.filter(pk=chunk_id)
    status = rows.values_list("status", flat=True).first()
    return {
        ChunkStatus.DONE: "already done",
        ChunkStatus.RUNNING: "held by another worker",
        None: "no such chunk",
    }.get(status, f"not claimable ({status})")


def chunk_run(*, chunk, token: uuid.UUID, keeper: bool = True, **options) -> str:
    """Do the chunk's missing work; 'done', 'cancelled', 'stopped' (lease lost) or 'skipped'.

    `keeper` runs the lease keeper thread (tasks); the inline runner checks between batches.
    `options` go to the kind's work (a pairwise demo's stored answers).
    """
    kind = run_kind_of(chunk)
    run = kind.run_of(chunk)
    if not lifecycle.accepts_work(run):
        lifecycle.chunk_move(kind, chunk.pk, "release", token=token)
        run_settle_cancel(kind, run_id=run.pk)
        return "cancelled" if run.cancel_requested else "skipped"
    with ChunkLease(kind, chunk.pk, run.pk, token, keeper=keeper) as lease:
        try:
            kind.work(chunk, lease, **options)
        except (ChunkStopped, RunCancelled):
            return _stopped(kind, chunk, lease)
    return "done"


def _stopped(kind: RunKind, chunk, lease: ChunkLease) -> str:
    """Give the chunk back (if still ours) and, after a cancel, end the run as cancelled."""
    lifecycle.chunk_move(kind, chunk.pk, "release", token=lease.token)
    if run_settle_cancel(kind, run_id=lease.run_id) or lease.reason == "cancelled":
        return "cancelled"
    return "stopped"


def batch_commit(lease: ChunkLease, count: int, write, **bump) -> None:
    """`write()`, the lease check and the progress bump (`count` results and the kind's own
    counters in `bump`) in one transaction: a runner that lost its lease, or a run that was
    cancelled meanwhile, writes nothing (the rows roll back)."""
    with transaction.atomic():
        write()
        if not lifecycle.lease_renew(lease.kind, lease.chunk_id, lease.token):
            lease.reason = "lost"
            raise ChunkStopped("lost")
        if not lifecycle.progress(lease.kind, lease.run_id, count, **bump):
            lease.reason = "cancelled"
            raise ChunkStopped(f"the {lease.kind.noun} is no longer running")
        if (calls := lease.progress) is not None:
            calls.settle()  # the calls answered so far are written now


def chunk_complete(*, chunk, token: uuid.UUID) -> list:
    """Mark done once (only by the lease holder); return the chunks dispatched next."""
    kind = run_kind_of(chunk)
    if not lifecycle.chunk_move(kind, chunk.pk, "done", token=token, finished_at=timezone.now()):
        return []
    return chunk_finished(chunk=chunk)


def chunk_finished(*, chunk) -> list:
    """After a chunk moved to done (once): count it, let its kind unblock what waited on it,
    finish the run if that was the last (or settle a cancel that was asked), and return the
    chunks dispatched next on the queues it touched."""
    kind = run_kind_of(chunk)
    run_id = kind.run_id_of(chunk)
    kind.run_model.objects.filter(pk=run_id).update(chunks_done=F("chunks_done") + 1)
    queues = kind.chunk_done(chunk)
    run_finalize_if_done(kind, run_id=run_id)
    return chunks_dispatch(tuple(sorted(queues)))


def chunk_failed(kind: RunKind, *, chunk_id: int, message: str) -> None:
    """A chunk's task raised: the chunk and its run fail at once (written rows are kept)."""
    chunk = kind.chunk_model.objects.filter(pk=chunk_id).first()
    if chunk is None:
        return
    lifecycle.chunk_move(kind, chunk_id, "fail", error=cap_text(message, ERROR_BYTES))
    run_fail(kind, run_id=kind.run_id_of(chunk), message=f"A chunk of work failed: {message}")
