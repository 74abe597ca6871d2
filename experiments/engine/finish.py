"""Ending a run: completed exactly once with its numbers, cancelled, or failed."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from assay.safety.caps import MESSAGE_BYTES, cap_text

from ..models import Experiment, ExperimentChunk, ExperimentStatus, Result, TargetResult
from . import lifecycle


def experiment_finalize_if_done(*, experiment_id: int) -> bool:
    """The last chunk finalises: running → completed exactly once, then the aggregates."""
    if ExperimentChunk.objects.filter(
        experiment_id=experiment_id, status__in=lifecycle.UNFINISHED_CHUNKS
    ).exists():
        return _cancel_asked(experiment_id) and experiment_settle_cancel(
            experiment_id=experiment_id
        )
    # claim and aggregates commit together: nobody sees "completed" without its numbers
    with transaction.atomic():
        now = timezone.now()
        claimed = lifecycle.experiment_move(
            experiment_id,
            "complete",
            where=Q(cancel_requested=False),
            finished_at=now,
            heartbeat_at=now,
        )
        if claimed:
            _settle(experiment_id)
            _prepare_pages(experiment_id)
    return claimed or experiment_settle_cancel(experiment_id=experiment_id)


def _prepare_pages(experiment_id: int) -> None:
    # after the commit, outside the claim's transaction: a million-row pairing takes seconds
    from ..results.compare.prepare import run_pages_prepare_on_commit

    run_pages_prepare_on_commit(experiment_id=experiment_id)


def _cancel_asked(experiment_id: int) -> bool:
    return Experiment.objects.filter(
        pk=experiment_id, cancel_requested=True, status=ExperimentStatus.RUNNING
    ).exists()


def experiment_settle_cancel(*, experiment_id: int) -> bool:
    """End a run whose cancel was asked: → cancelled once, with its numbers."""
    with transaction.atomic():
        cancelled = lifecycle.experiment_move(
            experiment_id, "cancel", where=Q(cancel_requested=True), finished_at=timezone.now()
        )
        if cancelled:
            _settle(experiment_id)
    return cancelled


def _settle(experiment_id: int) -> None:
    from ..results.aggregates import aggregates_refresh
    from ..results.calibration import calibrations_record

    _settle_counters(experiment_id)
    experiment = Experiment.objects.get(pk=experiment_id)
    calibrations_record(experiment=experiment)
    aggregates_refresh(experiment=experiment)


def _settle_counters(experiment_id: int) -> None:
    """Counters bumped by concurrent chunks (and by calls before their rows were written) are
    exact once everything is written. A row scored per assistant turn counts once (its turn 0;
    a row scored per row has only that)."""
    count = Result.objects.filter(experiment_id=experiment_id, turn=0).count()
    targets = TargetResult.objects.filter(experiment_id=experiment_id).count()
    Experiment.objects.filter(pk=experiment_id).update(results_done=count, targets_done=targets)


def experiment_fail(*, experiment_id: int, message: str) -> None:
    """→ failed (from queued or running), keeping every finished row."""
    with transaction.atomic():
        failed = lifecycle.experiment_move(
            experiment_id,
            "fail",
            finished_at=timezone.now(),
            error_message=cap_text(message, MESSAGE_BYTES),
        )
        if failed:
            _settle(experiment_id)
