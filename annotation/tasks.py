"""Tasks of human review: thin wrappers that call the services."""

from __future__ import annotations

from celery import shared_task

from .services.feeds import feeds_sweep


@shared_task(ignore_result=True)
def sweep_feeds() -> int:
    """Add to each queue that follows an online rule or an experiment the new outcomes or
    results in its sample (each feed from where its last sweep stopped); the items added."""
    return feeds_sweep()
