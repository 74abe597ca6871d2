"""Production traces: workspace ingest keys, the span batches the OTLP endpoint queued, and the
spans a worker stored from them (typed columns filled by `traces.normalise`).

On PostgreSQL `traces_span` is partitioned by day on `start_time` (migration 0001 creates it
with raw SQL; `traces.ingest.storing` adds a day's partition before its first row, retention drops
whole partitions). Its primary key there is (id, start_time): a partitioned table's unique keys
must hold the partition key. On SQLite it is a plain table.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from assay.bases import HashedKey
from assay.models import Workspace


class IngestKey(HashedKey):
    """A write-only key: it sends spans to its workspace and nothing else (the API's token
    authentication never looks at this table). Only its hash is stored."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="ingest_keys")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )


class SpanBatch(models.Model):
    """One accepted OTLP request waiting for the worker: the request re-encoded as protobuf with
    only its accepted spans. The worker stores its spans and deletes it in one transaction."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    payload = models.BinaryField()
    span_count = models.PositiveIntegerField()
    received_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"span batch {self.pk} ({self.span_count} spans)"


class SpanKind(models.TextChoices):
    """What a span did, in OpenInference's words (GenAI operations map onto them)."""

    # a context of their own: "tool" is also a message role, translated otherwise
    LLM = "llm", pgettext_lazy("span kind", "LLM")
    TOOL = "tool", pgettext_lazy("span kind", "tool")
    AGENT = "agent", pgettext_lazy("span kind", "agent")
    CHAIN = "chain", pgettext_lazy("span kind", "chain")
    RETRIEVER = "retriever", pgettext_lazy("span kind", "retriever")
    EMBEDDING = "embedding", pgettext_lazy("span kind", "embedding")
    RERANKER = "reranker", pgettext_lazy("span kind", "reranker")
    GUARDRAIL = "guardrail", pgettext_lazy("span kind", "guardrail")
    EVALUATOR = "evaluator", pgettext_lazy("span kind", "evaluator")
    OTHER = "other", pgettext_lazy("span kind", "other")


class SpanStatus(models.TextChoices):
    """OTLP's status codes."""

    UNSET = "unset", _("unset")
    OK = "ok", _("ok")
    ERROR = "error", _("error")


class Span(models.Model):
    """One stored span. Ids are lower-case hex as OpenTelemetry prints them; the parent may
    arrive later than its children (a trace is assembled when read, by `parent_span_id`)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    trace_id = models.CharField(max_length=32)
    span_id = models.CharField(max_length=16)
    parent_span_id = models.CharField(max_length=16, blank=True)
    name = models.CharField(max_length=256)
    service = models.CharField(max_length=128, blank=True)
    kind = models.CharField(max_length=16, choices=SpanKind.choices, default=SpanKind.OTHER)
    model = models.CharField(max_length=200, blank=True)
    input_text = models.TextField(blank=True)
    output_text = models.TextField(blank=True)
    # Assay's Conversation content ({"content_type": "Conversation", "messages": [...]})
    input_messages = models.JSONField(null=True, blank=True)
    output_messages = models.JSONField(null=True, blank=True)
    tokens_in = models.BigIntegerField(null=True, blank=True)
    tokens_out = models.BigIntegerField(null=True, blank=True)
    cost = models.FloatField(null=True, blank=True)  # USD
    session_id = models.CharField(max_length=256, blank=True)
    user_id = models.CharField(max_length=256, blank=True)
    environment = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=8, choices=SpanStatus.choices, default=SpanStatus.UNSET)
    error = models.TextField(blank=True)
    start_time = models.DateTimeField()
    end_time = models.DateTimeField()
    duration_ms = models.FloatField()
    attributes = models.JSONField(default=dict, blank=True)  # raw, capped (see storing)
    received_at = models.DateTimeField()

    class Meta:
        constraints = [
            # an exporter's retry sends the same span again: stored once
            models.UniqueConstraint(
                fields=["workspace", "trace_id", "span_id", "start_time"],
                name="traces_span_once",
            )
        ]
        indexes = [
            models.Index(fields=["workspace", "trace_id"], name="traces_span_trace"),
            models.Index(fields=["workspace", "-start_time"], name="traces_span_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.trace_id}/{self.span_id})"


class TraceSummary(models.Model):
    """One trace's figures, kept by the worker as its spans are stored (in the same
    transaction, counting only spans actually inserted: an exporter's retry adds nothing), so
    the traces list and sessions read one row a trace instead of grouping spans.

    `models_seen` and `kinds_seen` hold the distinct values seen as "|a|b|" (a filter looks
    for "|a|"); the sums are 0 when no span gave them. The root's name and service come when
    the root span arrives (`has_root`); until then `service` is any span's."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    trace_id = models.CharField(max_length=32)
    has_root = models.BooleanField(default=False)
    root_name = models.CharField(max_length=256, blank=True)
    service = models.CharField(max_length=128, blank=True)
    environment = models.CharField(max_length=64, blank=True)
    session_id = models.CharField(max_length=256, blank=True)
    user_id = models.CharField(max_length=256, blank=True)
    start_time = models.DateTimeField()
    end_time = models.DateTimeField()
    duration_ms = models.FloatField()
    span_count = models.IntegerField(default=0)
    error_count = models.IntegerField(default=0)
    tokens_in = models.BigIntegerField(default=0)
    tokens_out = models.BigIntegerField(default=0)
    tokens_total = models.BigIntegerField(default=0)
    cost = models.FloatField(default=0)  # USD
    models_seen = models.TextField(blank=True)
    kinds_seen = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "trace_id"], name="traces_summary_once")
        ]
        # each sortable column, with the trace id that breaks ties (keyset paging)
        indexes = [
            models.Index(fields=["workspace", "-start_time", "-trace_id"], name="traces_sum_start"),
            models.Index(
                fields=["workspace", "-duration_ms", "-trace_id"], name="traces_sum_duration"
            ),
            models.Index(
                fields=["workspace", "-tokens_total", "-trace_id"], name="traces_sum_tokens"
            ),
            models.Index(fields=["workspace", "-cost", "-trace_id"], name="traces_sum_cost"),
            models.Index(fields=["workspace", "-span_count", "-trace_id"], name="traces_sum_spans"),
            models.Index(
                fields=["workspace", "session_id", "-start_time"], name="traces_sum_session"
            ),
            # the selective filters: a page of a rare service, user or of errors reads its
            # own index instead of walking every trace of the range
            models.Index(fields=["workspace", "service", "-start_time"], name="traces_sum_service"),
            models.Index(fields=["workspace", "user_id", "-start_time"], name="traces_sum_user"),
            models.Index(
                fields=["workspace", "-start_time"],
                condition=models.Q(error_count__gt=0),
                name="traces_sum_errors",
            ),
        ]

    def __str__(self) -> str:
        return f"trace {self.trace_id} ({self.span_count} spans)"
