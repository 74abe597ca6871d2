"""Tasks of webhooks: thin wrappers that take ids and call the services."""

from __future__ import annotations

from celery import shared_task

from .services import deliveries_sweep, delivery_attempt


@shared_task(ignore_result=True)
def deliver(delivery_id: int) -> None:
    """Attempt one delivery (nothing when it is not due or another sender holds it)."""
    delivery_attempt(delivery_id=delivery_id)


@shared_task(ignore_result=True)
def sweep_deliveries() -> int:
    """Attempt the due deliveries no task took; how many."""
    return deliveries_sweep()
