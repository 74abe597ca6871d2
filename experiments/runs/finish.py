"""Ending a run of any kind: completed exactly once with its numbers, cancelled, or failed.
What the numbers are is the kind's (`RunKind.settle`), computed in the finishing transaction."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from assay.safety.caps import MESSAGE_BYTES, cap_text

from . import lifecycle
from .bases import RunStatus
from .kinds import RunKind


def run_finalize_if_done(kind: RunKind, *, run_id: int) -> bool:
    """The last chunk finalises: running → completed exactly once, then the kind's numbers."""
    unfinished = kind.chunk_model.objects.filter(
        **{f"{kind.run_field}_id": run_id, "status__in": lifecycle.UNFINISHED_CHUNKS}
    )
    if unfinished.exists():
        return _cancel_asked(kind, run_id) and run_settle_cancel(kind, run_id=run_id)
    # claim and numbers commit together: nobody sees "completed" without its numbers
    with transaction.atomic():
        now = timezone.now()
        claimed = lifecycle.move(
            kind,
            run_id,
            "complete",
            where=Q(cancel_requested=False),
            finished_at=now,
            heartbeat_at=now,
        )
        if claimed:
            kind.settle(run_id)
            kind.completed(run_id)
    return claimed or run_settle_cancel(kind, run_id=run_id)


def _cancel_asked(kind: RunKind, run_id: int) -> bool:
    return kind.run_model.objects.filter(
        pk=run_id, cancel_requested=True, status=RunStatus.RUNNING
    ).exists()


def run_settle_cancel(kind: RunKind, *, run_id: int) -> bool:
    """End a run whose cancel was asked: → cancelled once, with its numbers so far."""
    with transaction.atomic():
        cancelled = lifecycle.move(
            kind, run_id, "cancel", where=Q(cancel_requested=True), finished_at=timezone.now()
        )
        if cancelled:
            kind.settle(run_id)
    return cancelled


def run_fail(kind: RunKind, *, run_id: int, message: str) -> None:
    """→ failed (from queued or running), keeping every finished row."""
    with transaction.atomic():
        failed = lifecycle.move(
            kind,
            run_id,
            "fail",
            finished_at=timezone.now(),
            error_message=cap_text(message, MESSAGE_BYTES),
        )
        if failed:
            kind.settle(run_id)
