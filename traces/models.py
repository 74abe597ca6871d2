"""Production traces: workspace ingest keys, the span batches the OTLP endpoint queued, and the
spans a worker stored from them (typed columns filled by `traces.normalise`).

On PostgreSQL `traces_span` is partitioned by day on `start_time` (migration 0001 creates it
with raw SQL; `traces.storing` adds a day's partition before its first row, retention drops
whole partitions). Its primary key there is (id, start_time): a partitioned table's unique keys
must hold the partition key. On SQLite it is a plain table.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

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

    LLM = "llm", _("LLM")
    TOOL = "tool", _("tool")
    AGENT = "agent", _("agent")
    CHAIN = "chain", _("chain")
    RETRIEVER = "retriever", _("retriever")
    EMBEDDING = "embedding", _("embedding")
    RERANKER = "reranker", _("reranker")
    GUARDRAIL = "guardrail", _("guardrail")
    EVALUATOR = "evaluator", _("evaluator")
    OTHER = "other", _("other")


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
