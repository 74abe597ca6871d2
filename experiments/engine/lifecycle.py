"""Every status change of experiments and chunks, each one conditional UPDATE.

Nothing else writes `status`: a caller names an event, the allowed from-states come from the
table below, and the return value says whether this caller made the move (so exactly one of
two racing callers acts on it).

Experiment: draft → queued → running → completed | failed | cancelled; a finished run goes
back to queued for "retry failed rows".

Chunk: waiting (evaluator chunks behind their range's target chunk) → pending → queued (its
message is in the broker) → running (claimed under a lease token) → done | failed; a running
chunk goes back to pending when it is released (cancel, a lost lease) or revived (its lease
expired: the worker died). The target chunk of an external target waits for pushed outputs and
moves waiting → done when its range has them all (or the client closes the run).

A pairwise run and its chunks move through the same states by the same events
(`pairwise_move`, `pairwise_chunk_move`, …): one table of moves for both kinds of run.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from ..models import (
    ChunkStatus,
    Experiment,
    ExperimentChunk,
    ExperimentStatus,
    PairwiseChunk,
    PairwiseRun,
)

E, C = ExperimentStatus, ChunkStatus
EXPERIMENT_EVENTS: dict[str, tuple[tuple[str, ...], str]] = {
    "launch": ((E.DRAFT,), E.QUEUED),
    "start": ((E.QUEUED, E.RUNNING), E.RUNNING),
    "complete": ((E.RUNNING,), E.COMPLETED),
    "cancel": ((E.QUEUED, E.RUNNING), E.CANCELLED),
    "fail": ((E.QUEUED, E.RUNNING), E.FAILED),
    "retry": ((E.COMPLETED, E.FAILED, E.CANCELLED), E.QUEUED),
}
CHUNK_EVENTS: dict[str, tuple[tuple[str, ...], str]] = {
    "unblock": ((C.WAITING,), C.PENDING),
    "arrive": ((C.WAITING,), C.DONE),  # a pushed target's range has all its outputs
    "queue": ((C.PENDING,), C.QUEUED),
    "resend": ((C.QUEUED,), C.QUEUED),
    "release": ((C.RUNNING,), C.PENDING),
    "revive": ((C.RUNNING,), C.PENDING),
    "done": ((C.RUNNING,), C.DONE),
    "fail": ((C.WAITING, C.PENDING, C.QUEUED, C.RUNNING), C.FAILED),
}
UNFINISHED_CHUNKS = (C.WAITING, C.PENDING, C.QUEUED, C.RUNNING)
# A pairwise run moves as an experiment does (it is created as a draft and launched at once).
PAIRWISE_EVENTS = EXPERIMENT_EVENTS


def experiment_move(experiment_id: int, event: str, *, where: Q | None = None, **fields) -> bool:
    """Apply `event` if the experiment is in one of its from-states (and matches `where`)."""
    return _run_move(Experiment, EXPERIMENT_EVENTS, experiment_id, event, where, fields)


def pairwise_move(run_id: int, event: str, *, where: Q | None = None, **fields) -> bool:
    """Apply `event` if the pairwise run is in one of its from-states (and matches `where`)."""
    return _run_move(PairwiseRun, PAIRWISE_EVENTS, run_id, event, where, fields)


def _run_move(model, events, pk: int, event: str, where: Q | None, fields: dict) -> bool:
    sources, target = events[event]
    rows = model.objects.filter(pk=pk, status__in=sources)
    if where is not None:
        rows = rows.filter(where)
    return bool(rows.update(status=target, **fields))


def experiment_progress(experiment_id: int, count: int, *, targets: int = 0) -> bool:
    """Count `count` more results (and `targets` more target outputs) and beat the heartbeat,
    only while the experiment runs (False once it was cancelled or finished: the caller's rows
    must then roll back)."""
    if not targets:
        return _progress(Experiment, experiment_id, count)
    return _progress(Experiment, experiment_id, count, targets_done=F("targets_done") + targets)


def pairwise_progress(run_id: int, count: int) -> bool:
    """`experiment_progress` for a pairwise run."""
    return _progress(PairwiseRun, run_id, count)


def _progress(model, pk: int, count: int, **more) -> bool:
    rows = model.objects.filter(pk=pk, status=E.RUNNING)
    now = timezone.now()
    if (count or more) and model is Experiment:
        more["progressed_at"] = now  # the ETA counts down from the last move
    return bool(rows.update(results_done=F("results_done") + count, heartbeat_at=now, **more))


def accepts_work(experiment: Experiment | PairwiseRun) -> bool:
    """Whether a chunk of this run should run now (running, and no cancel asked)."""
    return experiment.status == E.RUNNING and not experiment.cancel_requested


def chunk_move(
    chunk_id: int, event: str, *, token: uuid.UUID | None = None, where: Q | None = None, **fields
) -> bool:
    """Apply `event` to one chunk; with `token`, only while that lease holds it."""
    return _chunk_move(ExperimentChunk, chunk_id, event, token, where, fields)


def pairwise_chunk_move(
    chunk_id: int, event: str, *, token: uuid.UUID | None = None, where: Q | None = None, **fields
) -> bool:
    """`chunk_move` for a chunk of a pairwise run."""
    return _chunk_move(PairwiseChunk, chunk_id, event, token, where, fields)


def _chunk_move(model, chunk_id, event, token, where, fields) -> bool:
    sources, target = CHUNK_EVENTS[event]
    rows = model.objects.filter(pk=chunk_id, status__in=sources)
    if token is not None:
        rows = rows.filter(lease_token=token)
    if where is not None:
        rows = rows.filter(where)
    if target != C.RUNNING:
        fields.setdefault("lease_token", None)
    return bool(rows.update(status=target, **fields))


def lease_seconds() -> float:
    return float(settings.ASSAY_CHUNK_LEASE_S)


def chunk_claim(chunk_id: int) -> uuid.UUID | None:
    """Take a chunk under a new lease token: pending or queued, or running with an expired
    lease (its worker died). A chunk whose lease is alive is someone else's: None. The counts
    a dead runner's keeper left (engine.progress) start again at 0."""
    return _claim(ExperimentChunk, chunk_id, calls_in_flight=0, calls_answered=0)


def pairwise_chunk_claim(chunk_id: int) -> uuid.UUID | None:
    """`chunk_claim` for a chunk of a pairwise run."""
    return _claim(PairwiseChunk, chunk_id)


def _claim(model, chunk_id: int, **fresh) -> uuid.UUID | None:
    now, token = timezone.now(), uuid.uuid4()
    claimable = Q(status__in=[C.PENDING, C.QUEUED]) | Q(status=C.RUNNING, lease_expires_at__lt=now)
    claimed = model.objects.filter(claimable, pk=chunk_id).update(
        status=C.RUNNING,
        lease_token=token,
        claimed_at=now,
        attempts=F("attempts") + 1,
        lease_expires_at=now + timedelta(seconds=lease_seconds()),
        **fresh,
    )
    return token if claimed else None


def lease_renew(chunk_id: int, token: uuid.UUID) -> bool:
    """Push the lease's expiry forward; False when the lease is no longer ours."""
    return _renew(ExperimentChunk, chunk_id, token)


def pairwise_lease_renew(chunk_id: int, token: uuid.UUID) -> bool:
    """`lease_renew` for a chunk of a pairwise run."""
    return _renew(PairwiseChunk, chunk_id, token)


def _renew(model, chunk_id: int, token: uuid.UUID) -> bool:
    expires = timezone.now() + timedelta(seconds=lease_seconds())
    rows = model.objects.filter(pk=chunk_id, status=C.RUNNING, lease_token=token)
    return bool(rows.update(lease_expires_at=expires))


def chunks_reset(experiment: Experiment, *, with_target: bool) -> None:
    """Every chunk back to its first state, for a retry round (evaluators wait for targets)."""
    chunks = ExperimentChunk.objects.filter(experiment=experiment)
    fields = {"attempts": 0, "claimed_at": None, "lease_token": None, "error": ""}
    if with_target:
        chunks.exclude(kind="target").update(status=C.WAITING, **fields)
        chunks.filter(kind="target").update(status=C.PENDING, **fields)
    else:
        chunks.update(status=C.PENDING, **fields)


def pairwise_chunks_reset(run: PairwiseRun) -> None:
    """Every chunk of a pairwise run back to pending, for a retry round."""
    PairwiseChunk.objects.filter(run=run).update(
        status=C.PENDING, attempts=0, claimed_at=None, lease_token=None, error=""
    )
