"""Cancel and retry-failed, once for every kind of run (what differs is the kind's: its
messages, its chunks' first states, what a retry round runs again)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from . import lifecycle
from .bases import ChunkStatus
from .finish import run_settle_cancel
from .isolation import run_isolated
from .kinds import RunKind


def run_cancel(*, kind: RunKind, run):
    """Stop a run: a queued run, or one with no chunk at work, is cancelled at once (with its
    numbers so far); running chunks see the flag within a second, kill their sandbox child or
    drop their calls in flight, and the run ends cancelled (never completed) without writing
    what they were doing."""
    runs = kind.run_model.objects.filter(pk=run.pk, status__in=lifecycle.ACTIVE)
    runs.update(cancel_requested=True)
    chunks = kind.chunk_model.objects.filter(**{kind.run_field: run})
    if not chunks.filter(status=ChunkStatus.RUNNING).exists():
        # a run whose stored rows cannot be settled is failed, not left uncancellable (a 500)
        run_isolated(kind, run.pk, run_settle_cancel, kind, run_id=run.pk)
    run.refresh_from_db()
    if not run.cancel_requested:
        raise ValidationError({"status": kind.messages["cannot_cancel"] % {"status": run.status}})
    return run


def run_retry_failed(*, kind: RunKind, run):
    """Run the failed rows again, into the same run, and return what the kind says of them
    (`RunKind.retry_plan`); the start message goes out once the round is committed."""
    from .tasks import run_start_send

    if run.status not in lifecycle.FINISHED:
        raise ValidationError({"status": kind.messages["not_finished"]})
    plan = kind.retry_plan(run)
    if plan.count == 0:
        raise ValidationError({"status": kind.messages["nothing_to_retry"]})
    with transaction.atomic():
        kind.chunks_reset(run)
        retried = lifecycle.move(
            kind,
            run.pk,
            "retry",
            retry_round=F("retry_round") + 1,
            chunks_done=0,
            cancel_requested=False,
            finished_at=None,
            error_message="",
            heartbeat_at=timezone.now(),
            **plan.fields,
        )
        if not retried:
            raise ValidationError({"status": kind.messages["changed"]})
        transaction.on_commit(lambda: run_start_send(kind, run.pk))
    run.refresh_from_db()
    return plan.answer


def run_launched(*, kind: RunKind, run_id: int, **totals) -> bool:
    """draft → queued with the run's totals; its start message goes out once committed."""
    from .tasks import run_start_send

    now = timezone.now()
    launched = lifecycle.move(kind, run_id, "launch", queued_at=now, heartbeat_at=now, **totals)
    transaction.on_commit(lambda: run_start_send(kind, run_id))
    return launched
