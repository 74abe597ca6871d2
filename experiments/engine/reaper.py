"""The reaper: what a beat task does every ASSAY_REAPER_INTERVAL_S when workers or messages
went missing."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from ..models import ChunkStatus, Experiment, ExperimentChunk, ExperimentStatus
from . import lifecycle
from .dispatch import chunks_dispatch
from .finish import experiment_fail, experiment_finalize_if_done
from .isolation import EXPERIMENT, pass_isolated, run_isolated
from .pairwise import pairwise_reap


@dataclass
class Reaped:
    """What one reaper pass found: chunks to send again (experiments' and pairwise runs'),
    experiments and pairwise runs to start again."""

    send: list = field(default_factory=list)
    start: list[int] = field(default_factory=list)
    start_pairwise: list[int] = field(default_factory=list)
    touched: set[int] = field(default_factory=set)


def experiments_reap() -> Reaped:
    """Revive chunks whose lease expired (their worker died), resend chunk messages and
    start messages that were lost (a broker restarted without persistence), finish runs whose
    last step was interrupted, and dispatch what can run. Each run's step is isolated
    (`isolation.run_isolated`): a run whose step raises is logged and failed, the pass goes on."""
    now, reaped = timezone.now(), Reaped()
    stale = now - timedelta(seconds=settings.ASSAY_EXPERIMENT_STALE_S)
    _revive_expired(now, reaped)
    _resend_lost(now, stale, reaped)
    _restart_lost_starts(now, stale, reaped)
    for experiment_id in Experiment.objects.filter(status=ExperimentStatus.RUNNING).values_list(
        "pk", flat=True
    ):
        run_isolated(
            EXPERIMENT, experiment_id, experiment_finalize_if_done, experiment_id=experiment_id
        )
    pairwise_reap(now=now, stale=stale, reaped=reaped)
    reaped.send += pass_isolated("dispatch", chunks_dispatch)
    return reaped


def _revive_expired(now, reaped: Reaped) -> None:
    expired = ExperimentChunk.objects.filter(status=ChunkStatus.RUNNING, lease_expires_at__lt=now)
    for chunk in expired:
        reaped.touched.add(chunk.experiment_id)
        run_isolated(EXPERIMENT, chunk.experiment_id, _revive, chunk=chunk, now=now)


def _revive(*, chunk: ExperimentChunk, now) -> None:
    if chunk.attempts >= settings.ASSAY_CHUNK_MAX_ATTEMPTS:
        lifecycle.chunk_move(chunk.pk, "fail", error="its worker died or it hung repeatedly")
        experiment_fail(
            experiment_id=chunk.experiment_id,
            message="A chunk failed repeatedly (its worker died or it hung); the finished "
            "rows are kept.",
        )
        return
    lifecycle.chunk_move(chunk.pk, "revive", where=Q(lease_expires_at__lt=now))


def _resend_lost(now, stale, reaped: Reaped) -> None:
    lost = ExperimentChunk.objects.filter(
        status=ChunkStatus.QUEUED,
        queued_at__lt=stale,
        experiment__status=ExperimentStatus.RUNNING,
    ).select_related("experiment")
    for chunk in lost:
        if lifecycle.chunk_move(chunk.pk, "resend", where=Q(queued_at__lt=stale), queued_at=now):
            reaped.send.append(chunk)
            reaped.touched.add(chunk.experiment_id)


def _restart_lost_starts(now, stale, reaped: Reaped) -> None:
    for experiment in Experiment.objects.filter(
        status=ExperimentStatus.QUEUED, heartbeat_at__lt=stale
    ):
        if Experiment.objects.filter(pk=experiment.pk, heartbeat_at__lt=stale).update(
            heartbeat_at=now
        ):
            reaped.start.append(experiment.pk)
            reaped.touched.add(experiment.pk)
