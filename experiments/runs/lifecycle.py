"""Every status change of runs and chunks, each one conditional UPDATE — for every kind of run.

Nothing else writes `status`: a caller names an event, the allowed from-states come from the
tables below, and the return value says whether this caller made the move (so exactly one of
two racing callers acts on it). Every function takes the kind of run (`kinds.RunKind`) first:
its models are the rows it moves.

Run: draft → queued → running → completed | failed | cancelled; a finished run goes back to
queued for "retry failed rows".

Chunk: waiting (an experiment's evaluator chunks behind their range's target chunk) → pending
→ queued (its message is in the broker) → running (claimed under a lease token) → done |
failed; a running chunk goes back to pending when it is released (cancel, a lost lease) or
revived (its lease expired: the worker died). The target chunk of an external target waits
for pushed outputs and moves waiting → done when its range has them all (or the client closes
the run).
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from .bases import ChunkStatus, RunStatus

R, C = RunStatus, ChunkStatus
RUN_EVENTS: dict[str, tuple[tuple[str, ...], str]] = {
    "launch": ((R.DRAFT,), R.QUEUED),
    "start": ((R.QUEUED, R.RUNNING), R.RUNNING),
    "complete": ((R.RUNNING,), R.COMPLETED),
    "cancel": ((R.QUEUED, R.RUNNING), R.CANCELLED),
    "fail": ((R.QUEUED, R.RUNNING), R.FAILED),
    "retry": ((R.COMPLETED, R.FAILED, R.CANCELLED), R.QUEUED),
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
FINISHED = RUN_EVENTS["retry"][0]
ACTIVE = RUN_EVENTS["cancel"][0]


def move(kind, pk: int, event: str, *, where: Q | None = None, **fields) -> bool:
    """Apply `event` if the run is in one of its from-states (and matches `where`)."""
    sources, target = RUN_EVENTS[event]
    rows = kind.run_model.objects.filter(pk=pk, status__in=sources)
    if where is not None:
        rows = rows.filter(where)
    return bool(rows.update(status=target, **fields))


def progress(kind, run_id: int, count: int, **more) -> bool:
    """Count `count` more results (and whatever `more` bumps) and beat the heartbeat, only
    while the run runs (False once it was cancelled or finished: the caller's rows must then
    roll back)."""
    rows = kind.run_model.objects.filter(pk=run_id, status=R.RUNNING)
    now = timezone.now()
    return bool(rows.update(results_done=F("results_done") + count, heartbeat_at=now, **more))


def accepts_work(run) -> bool:
    """Whether a chunk of this run should run now (running, and no cancel asked)."""
    return run.status == R.RUNNING and not run.cancel_requested


def chunk_move(
    kind,
    chunk_id: int,
    event: str,
    *,
    token: uuid.UUID | None = None,
    where: Q | None = None,
    **fields,
) -> bool:
    """Apply `event` to one chunk; with `token`, only while that lease holds it."""
    sources, target = CHUNK_EVENTS[event]
    rows = kind.chunk_model.objects.filter(pk=chunk_id, status__in=sources)
    if token is not None:
        rows = rows.filter(lease_token=token)
    if where is not None:
        rows = rows.filter(where)
    if target != C.RUNNING:
        fields.setdefault("lease_token", None)
    return bool(rows.update(status=target, **fields))


def lease_seconds() -> float:
    return float(settings.ASSAY_CHUNK_LEASE_S)


def claim(kind, chunk_id: int) -> uuid.UUID | None:
    """Take a chunk under a new lease token: pending or queued, or running with an expired
    lease (its worker died). A chunk whose lease is alive is someone else's: None. The counts
    a dead runner's keeper left (the kind's `claim_fresh`) start again at 0."""
    now, token = timezone.now(), uuid.uuid4()
    claimable = Q(status__in=[C.PENDING, C.QUEUED]) | Q(status=C.RUNNING, lease_expires_at__lt=now)
    claimed = kind.chunk_model.objects.filter(claimable, pk=chunk_id).update(
        status=C.RUNNING,
        lease_token=token,
        claimed_at=now,
        attempts=F("attempts") + 1,
        lease_expires_at=now + timedelta(seconds=lease_seconds()),
        **kind.claim_fresh,
    )
    return token if claimed else None


def lease_renew(kind, chunk_id: int, token: uuid.UUID) -> bool:
    """Push the lease's expiry forward; False when the lease is no longer ours."""
    expires = timezone.now() + timedelta(seconds=lease_seconds())
    rows = kind.chunk_model.objects.filter(pk=chunk_id, status=C.RUNNING, lease_token=token)
    return bool(rows.update(lease_expires_at=expires))


def chunks_reset(kind, run, *, first: dict | None = None) -> None:
    """Every chunk of `run` back to its first state, for a retry round: `first[chunk kind]`
    where given (an experiment's evaluator chunks wait for their target chunk), else pending."""
    chunks = kind.chunk_model.objects.filter(**{kind.run_field: run})
    fields = {"attempts": 0, "claimed_at": None, "lease_token": None, "error": ""}
    first = first or {}
    for status in set(first.values()):
        chunk_kinds = [k for k, s in first.items() if s == status]
        chunks.filter(kind__in=chunk_kinds).update(status=status, **fields)
    rest = chunks.exclude(kind__in=list(first)) if first else chunks
    rest.update(status=C.PENDING, **fields)
