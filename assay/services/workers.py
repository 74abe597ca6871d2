"""Worker heartbeats."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from ..models import (
    WorkerBeat,
)


def worker_beat(*, hostname: str) -> None:
    """Record that a pool process of worker `hostname` ran a task now; beats of workers gone
    for a day are dropped."""
    now = timezone.now()
    if not WorkerBeat.objects.filter(hostname=hostname).update(beat_at=now):
        WorkerBeat.objects.get_or_create(hostname=hostname, defaults={"beat_at": now})
    WorkerBeat.objects.filter(beat_at__lt=now - timedelta(days=1)).delete()
