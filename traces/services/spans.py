"""Span batches: accepted by the endpoint, stored by a worker, and retention."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerDown
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from assay.models import Workspace

from ..ingest import storing, summaries
from ..models import Span, SpanBatch
from .pressure import IngestBusy, span_rate_take

logger = logging.getLogger(__name__)
QUEUE_RETRY_AFTER_S = 5


def span_batch_accept(
    *, workspace: Workspace, message: ExportTraceServiceRequest, span_count: int
) -> SpanBatch | None:
    """Queue the screened request for a worker (None when it has no span left); IngestBusy
    when the workspace sends over its span rate or already has ASSAY_OTLP_MAX_QUEUED_BATCHES
    batches waiting."""
    if not span_count:
        return None
    waiting = SpanBatch.objects.filter(workspace=workspace).values("pk")
    if waiting[: settings.ASSAY_OTLP_MAX_QUEUED_BATCHES].count() >= (
        settings.ASSAY_OTLP_MAX_QUEUED_BATCHES
    ):
        # said to an exporter, in the protocol's English (not a page: not translated)
        raise IngestBusy(
            "too many span batches are waiting to be stored; retry later", QUEUE_RETRY_AFTER_S
        )
    span_rate_take(workspace=workspace, spans=span_count)
    batch = SpanBatch.objects.create(
        workspace=workspace, payload=message.SerializeToString(), span_count=span_count
    )
    transaction.on_commit(lambda: _enqueue(batch.pk))
    return batch


def _enqueue(batch_id: int) -> None:
    """Send the batch's task. A broker that is down loses nothing: the batch row is committed,
    and `resume_batches` sends it again once the broker is back, so the request still
    answers 200 (an exporter told 503 would retry for seconds, then drop the spans)."""
    from ..tasks import store_batch

    try:
        store_batch.apply_async(args=[batch_id], queue="default")
    except BrokerDown as exc:
        logger.warning(
            "span batch %s kept for resume_batches: the broker is down (%s)", batch_id, exc
        )


def span_batch_store(*, batch_id: int) -> int:
    """Store a batch's spans and delete it, in one transaction: a message delivered twice
    stores once (the second finds no batch), a worker lost midway leaves the batch for the
    next delivery. The number of spans given to the insert (a retried span is skipped)."""
    with transaction.atomic():
        batch = (
            # of=self: locking the joined workspace row too would clash with the key-share lock
            # a request inserting the next batch holds on it, and SKIP LOCKED then skipped a
            # batch that was there
            SpanBatch.objects.select_for_update(
                skip_locked=connection.vendor == "postgresql", of=("self",)
            )
            .select_related("workspace")
            .filter(pk=batch_id)
            .first()
        )
        if batch is None:
            return 0
        rows = storing.batch_rows(
            workspace=batch.workspace, payload=bytes(batch.payload), received_at=batch.received_at
        )
        storing.rows_insert(rows)
        batch.delete()
    return len(rows)


def span_batches_stalled(*, older_than_s: int = 300) -> list[int]:
    """Batches still waiting long after they came (their message was lost): to send again."""
    cutoff = timezone.now() - timedelta(seconds=older_than_s)
    return list(SpanBatch.objects.filter(received_at__lt=cutoff).values_list("pk", flat=True))


def spans_retention_apply(*, now: datetime | None = None) -> int:
    """Forget spans older than ASSAY_TRACE_RETENTION_DAYS: whole day partitions dropped on
    PostgreSQL (the day of the cutoff is kept whole; today's and tomorrow's are made ahead),
    rows deleted elsewhere. How many partitions or rows went."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.ASSAY_TRACE_RETENTION_DAYS)
    if connection.vendor == "postgresql":
        with transaction.atomic():
            storing.partitions_ensure(days={now.date(), (now + timedelta(days=1)).date()})
        return len(storing.partitions_drop(before=cutoff.date()))
    with transaction.atomic():
        deleted, _counts = Span.objects.filter(start_time__lt=cutoff).delete()
        summaries.summaries_drop(before=cutoff)  # the traces' figures go with their spans
    return deleted
