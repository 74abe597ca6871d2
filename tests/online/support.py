"""Spans for online rules: stored through the store's own insert
(`traces.ingest.storing.rows_insert`, COPY on PostgreSQL) with chosen times, and a rule scoring
them with a code evaluator."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.utils import timezone
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from online.services import online_rule_create
from tests.support.factories import make_code_version
from traces.ingest.storing import rows_insert
from traces.models import Span

MAPPING = {"actual_output": "span:output", "reference_output": "attribute:expected"}


def llm_span(workspace, *, output: str, expected: str, at: datetime | None = None, **fields):
    """One LLM span of production traffic (a trace of its own unless `trace_id` is given)."""
    at = at or timezone.now()
    values = {
        "workspace": workspace,
        "trace_id": secrets.token_hex(16),
        "span_id": secrets.token_hex(8),
        "name": "chat",
        "kind": "llm",
        "model": "gpt-4o",
        "environment": "production",
        "output_text": output,
        "start_time": at,
        "end_time": at + timedelta(milliseconds=300),
        "duration_ms": 300.0,
        "attributes": {"expected": expected},
        "received_at": at,
        **fields,
    }
    return Span(**values)


def store(spans: list[Span]) -> list[Span]:
    rows_insert(spans)
    return spans


def code_rule(workspace, user, *, name: str = "answers", **fields):
    """A span rule on LLM spans scoring `contains expected` with a Python code evaluator."""
    version = make_code_version(workspace=workspace, user=user, name=f"Contains {name}")
    return online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": name, "filter": {"field": "kind", "op": "eq", "value": "llm"}, **fields},
        evaluators=[{"evaluator_version": version, "mapping": MAPPING}],
    )


def send_llm_spans(
    live_server, key: str, environment: str, answers, *, marker: bool = False
) -> str:
    """LLM spans of one trace each, sent by the OpenTelemetry SDK's OTLP/HTTP exporter (a
    batch processor, shut down at the end): (output, expected) pairs, OpenInference
    attributes, `expected` as an attribute; with `marker`, as Assay's own calls mark theirs.
    The last trace's id."""
    resource = Resource.create(
        {"service.name": "support-bot", "deployment.environment": environment}
    )
    provider = TracerProvider(resource=resource)
    exporter = OTLPSpanExporter(
        endpoint=f"{live_server.url}/otlp/v1/traces",
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,  # a busy 2-core machine: the export must not give up first
    )
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("support-bot")
    trace_id = ""
    for output, expected in answers:
        with tracer.start_as_current_span("answer") as span:
            span.set_attribute("openinference.span.kind", "LLM")
            span.set_attribute("input.value", "Where is my parcel?")
            span.set_attribute("output.value", output)
            span.set_attribute("expected", expected)
            if marker:
                span.set_attribute("assay.experiment", "run-1")
            trace_id = f"{span.get_span_context().trace_id:032x}"
    provider.shutdown()
    return trace_id
