"""The reaper: what a beat task does every ASSAY_REAPER_INTERVAL_S when workers or messages
went missing — the same pass over every registered kind of run."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from . import lifecycle
from .bases import ChunkStatus, RunStatus
from .dispatch import chunks_dispatch
from .finish import run_fail, run_finalize_if_done
from .isolation import pass_isolated, run_isolated
from .kinds import RunKind, run_kinds


@dataclass
class Reaped:
    """What one reaper pass found: chunks to send again (of every kind), runs to start again
    as (kind, run id), and the runs it touched as (kind name, run id)."""

    send: list = field(default_factory=list)
    start: list[tuple[RunKind, int]] = field(default_factory=list)
    touched: set[tuple[str, int]] = field(default_factory=set)


def runs_reap() -> Reaped:
    """Revive chunks whose lease expired (their worker died), resend chunk messages and
    start messages that were lost (a broker restarted without persistence), finish runs whose
    last step was interrupted, and dispatch what can run. Each run's step is isolated
    (`isolation.run_isolated`): a run whose step raises is logged and failed, the pass goes on."""
    now, reaped = timezone.now(), Reaped()
    stale = now - timedelta(seconds=settings.ASSAY_EXPERIMENT_STALE_S)
    for kind in run_kinds():
        _reap_kind(kind, now, stale, reaped)
    reaped.send += pass_isolated("dispatch", chunks_dispatch)
    return reaped


def _reap_kind(kind: RunKind, now, stale, reaped: Reaped) -> None:
    _revive_expired(kind, now, reaped)
    _resend_lost(kind, now, stale, reaped)
    _restart_lost_starts(kind, now, stale, reaped)
    running = kind.run_model.objects.filter(status=RunStatus.RUNNING)
    for run_id in running.values_list("pk", flat=True):
        run_isolated(kind, run_id, run_finalize_if_done, kind, run_id=run_id)


def _revive_expired(kind: RunKind, now, reaped: Reaped) -> None:
    expired = kind.chunk_model.objects.filter(status=ChunkStatus.RUNNING, lease_expires_at__lt=now)
    for chunk in expired:
        run_id = kind.run_id_of(chunk)
        reaped.touched.add((kind.name, run_id))
        run_isolated(kind, run_id, _revive, kind, chunk=chunk, now=now)


def _revive(kind: RunKind, *, chunk, now) -> None:
    if chunk.attempts >= settings.ASSAY_CHUNK_MAX_ATTEMPTS:
        lifecycle.chunk_move(kind, chunk.pk, "fail", error="its worker died or it hung repeatedly")
        run_fail(
            kind,
            run_id=kind.run_id_of(chunk),
            message="A chunk failed repeatedly (its worker died or it hung); "
            f"{kind.kept} are kept.",
        )
        return
    lifecycle.chunk_move(kind, chunk.pk, "revive", where=Q(lease_expires_at__lt=now))


def _resend_lost(kind: RunKind, now, stale, reaped: Reaped) -> None:
    lost = kind.chunk_model.objects.filter(
        status=ChunkStatus.QUEUED,
        queued_at__lt=stale,
        **{f"{kind.run_field}__status": RunStatus.RUNNING},
    )
    for chunk in lost:
        if lifecycle.chunk_move(
            kind, chunk.pk, "resend", where=Q(queued_at__lt=stale), queued_at=now
        ):
            reaped.send.append(chunk)
            reaped.touched.add((kind.name, kind.run_id_of(chunk)))


def _restart_lost_starts(kind: RunKind, now, stale, reaped: Reaped) -> None:
    runs = kind.run_model.objects
    queued = runs.filter(status=RunStatus.QUEUED, heartbeat_at__lt=stale)
    for run_id in queued.values_list("pk", flat=True):
        if runs.filter(pk=run_id, heartbeat_at__lt=stale).update(heartbeat_at=now):
            reaped.start.append((kind, run_id))
            reaped.touched.add((kind.name, run_id))
