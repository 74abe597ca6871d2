"""Platform tasks."""

from celery import shared_task


@shared_task(name="assay.tasks.ping")
def ping(value: str) -> str:
    """Round-trip check: the worker echoes what it was sent."""
    return f"pong:{value}"
