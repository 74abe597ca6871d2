"""Celery tasks of traces: thin wrappers that take ids and call the services."""

from celery import shared_task

from . import services


@shared_task(name="traces.tasks.store_batch", queue="default")
def store_batch(batch_id: int) -> int:
    """Store one queued span batch. Safe to deliver twice: the batch is stored once."""
    return services.span_batch_store(batch_id=batch_id)


@shared_task(name="traces.tasks.resume_batches", queue="default")
def resume_batches() -> int:
    """Send again the batches whose message was lost (beat)."""
    stalled = services.span_batches_stalled()
    for batch_id in stalled:
        store_batch.apply_async(args=[batch_id], queue="default")
    return len(stalled)


@shared_task(name="traces.tasks.apply_retention", queue="default")
def apply_retention() -> int:
    """Drop spans past ASSAY_TRACE_RETENTION_DAYS (beat, hourly)."""
    return services.spans_retention_apply()
