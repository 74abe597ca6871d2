"""The beat's task: compare the runs that finished, then launch (or skip) the due schedules."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from . import services


@shared_task(name="schedules.tasks.run_schedules", ignore_result=True)
def run_schedules() -> int:
    """Once a minute: store the comparisons of finished runs from templates (first, so a
    skipped overlap sees the previous run's outcome), then launch what is due; how many
    schedules fired."""
    now = timezone.now()
    services.schedule_runs_compare(now=now)
    return len(services.schedules_run_due(now=now))
