"""Background jobs kept as rows (an evalset import, a garak import): a task is given the row's
id and claims it with one conditional UPDATE, so a message delivered twice runs the job once.
And the beat's sweeps over many rows, each row on its own."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from datetime import timedelta

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import Q
from django.utils import timezone

logger = logging.getLogger(__name__)


def job_claim(*, model: type[models.Model], pk: int, queued: str, running: str):
    """Move a queued job to running and return it; None when someone else has it (or it
    already ran). A job left running for longer than the task time limit lost its worker and
    is claimed again (the job itself resumes or starts over)."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    claimable = Q(status=queued) | Q(status=running, started_at__lt=stale)
    claimed = model.objects.filter(claimable, pk=pk).update(status=running, started_at=now)
    return model.objects.get(pk=pk) if claimed else None


def each_apart(items: Iterable, work: Callable, *, what: str) -> list:
    """`work(item)` for each of `items` (ids or rows), in turn; one that raises is logged with
    its id and left for the next sweep while the others go on (one broken rule, alert, feed or
    schedule must not starve the rest). What each call returned, for those that did."""
    done = []
    for item in items:
        try:
            with _apart():
                done.append(work(item))
        except Exception:  # noqa: BLE001 - whatever broke, it is this row's alone
            logger.exception("%s %s failed", what, getattr(item, "pk", item))
    return done


def _apart():
    """Inside a transaction, a savepoint, so that one row's database error does not break the
    transaction for the rows after it (the beat's callers have none: each row's own)."""
    return transaction.atomic() if connection.in_atomic_block else nullcontext()
