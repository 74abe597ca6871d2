"""Background jobs kept as rows (an evalset import, a garak import): a task is given the row's
id and claims it with one conditional UPDATE, so a message delivered twice runs the job once."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


def job_claim(*, model: type[models.Model], pk: int, queued: str, running: str):
    """Move a queued job to running and return it; None when someone else has it (or it
    already ran). A job left running for longer than the task time limit lost its worker and
    is claimed again (the job itself resumes or starts over)."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    claimable = Q(status=queued) | Q(status=running, started_at__lt=stale)
    claimed = model.objects.filter(claimable, pk=pk).update(status=running, started_at=now)
    return model.objects.get(pk=pk) if claimed else None
