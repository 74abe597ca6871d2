"""Spans sent by clients no one here wrote, to a live server with a real worker: the
OpenTelemetry SDK's OTLP/HTTP exporter (protobuf, gzip), and the `openai` client instrumented
by OpenInference calling the suite's OpenAI-compatible server."""

import time

import openai
import pytest
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http import Compression
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import Status, StatusCode

from assay.models import ModelProvider
from tests.support.llm_server import CLEAN
from traces.models import Span, SpanBatch, SpanKind, SpanStatus
from traces.services import ingest_key_issue

pytestmark = pytest.mark.integration


def provider_for(live_server, key: str, **exporter) -> TracerProvider:
    """A tracer provider of its own (not the global one) exporting each span as it ends."""
    provider = TracerProvider(
        resource=Resource.create({"service.name": "demo-agent", "deployment.environment": "test"})
    )
    sender = OTLPSpanExporter(
        endpoint=f"{live_server.url}/otlp/v1/traces",
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,  # a busy 2-core machine: the export must not give up first
        **exporter,
    )
    provider.add_span_processor(SimpleSpanProcessor(sender))
    return provider


def stored_spans(count: int, **filters) -> list[Span]:
    """The spans once `count` are stored (the worker stores them after the answer)."""
    for _ in range(1200):  # at most two minutes, for a busy machine
        spans = list(Span.objects.filter(**filters).order_by("start_time"))
        if len(spans) >= count:
            return spans
        time.sleep(0.1)
    waiting = SpanBatch.objects.count()
    raise AssertionError(f"{len(spans)} of {count} spans stored, {waiting} batches waiting")


def test_the_sdk_exporter_sends_a_trace_whose_spans_arrive_out_of_order(
    celery_worker_inproc, live_server, workspace
):
    key = ingest_key_issue(workspace=workspace, name="sdk").key
    provider = provider_for(live_server, key, compression=Compression.Gzip)
    tracer = provider.get_tracer("demo")
    with tracer.start_as_current_span("agent run") as root:
        root.set_attribute("openinference.span.kind", "AGENT")
        root.set_attribute("session.id", "session-1")
        with tracer.start_as_current_span("search") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "search")
            tool.set_attribute("gen_ai.tool.call.arguments", '{"q": "otlp"}')
            tool.set_attribute("gen_ai.tool.call.result", "3 results")
        with tracer.start_as_current_span("answer") as failed:
            failed.record_exception(ValueError("no answer"))
            failed.set_status(Status(StatusCode.ERROR, "no answer"))
        context = root.get_span_context()
    provider.shutdown()
    # each span left as it ended: the children before their parent
    spans = stored_spans(3)
    assert [s.name for s in spans] == ["agent run", "search", "answer"]
    root_row, tool_row, failed_row = spans
    assert {tool_row.parent_span_id, failed_row.parent_span_id} == {root_row.span_id}
    assert root_row.trace_id == f"{context.trace_id:032x}" and root_row.parent_span_id == ""
    assert (root_row.kind, root_row.session_id, root_row.service) == (
        "agent",
        "session-1",
        "demo-agent",
    )
    assert (tool_row.kind, tool_row.input_text, tool_row.output_text) == (
        "tool",
        '{"q": "otlp"}',
        "3 results",
    )
    assert (failed_row.status, failed_row.error) == (SpanStatus.ERROR, "ValueError: no answer")
    assert root_row.environment == "test"

    # a child of the stored root arriving later, through another exporter, attaches to it
    late = provider_for(live_server, key)
    parent = trace.set_span_in_context(trace.NonRecordingSpan(context))
    with late.get_tracer("late").start_as_current_span("late child", context=parent):
        pass
    # shut down: the exporter's kept-alive connection holds a server thread and its database
    # connection until it closes
    late.shutdown()
    late_row = stored_spans(1, name="late child")[0]
    assert (late_row.trace_id, late_row.parent_span_id) == (root_row.trace_id, root_row.span_id)


def test_an_instrumented_openai_client(celery_worker_inproc, live_server, workspace, llm_server):
    ModelProvider.objects.create(
        workspace=workspace,
        name="local",
        base_url=llm_server.base_url,
        default_model="judge-model",
        prices={"judge-model": {"input": 1.0, "output": 2.0}},
    )
    provider = provider_for(live_server, ingest_key_issue(workspace=workspace, name="oi").key)
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        client = openai.OpenAI(base_url=llm_server.base_url, api_key="sk-local", max_retries=0)
        client.chat.completions.create(
            model="judge-model",
            messages=[
                {"role": "system", "content": "You judge."},
                {"role": "user", "content": "Is 2 + 2 = 4?"},
            ],
        )
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    (row,) = stored_spans(1)
    assert row.kind == SpanKind.LLM
    assert row.model == "judge-model"
    assert row.tokens_in > 0 and row.tokens_out > 0
    assert row.cost == pytest.approx((row.tokens_in * 1.0 + row.tokens_out * 2.0) / 1e6)
    assert row.input_messages["messages"] == [
        {"role": "system", "content": "You judge."},
        {"role": "user", "content": "Is 2 + 2 = 4?"},
    ]
    assert row.output_messages["messages"] == [{"role": "assistant", "content": CLEAN}]
    assert row.output_text == CLEAN
    assert row.status == SpanStatus.OK


def test_another_workspaces_key_stores_in_its_workspace_only(
    celery_worker_inproc, live_server, workspace, outsider
):
    from assay.models import Workspace

    other = Workspace.objects.get(slug="other")
    provider = provider_for(live_server, ingest_key_issue(workspace=other, name="k").key)
    with provider.get_tracer("t").start_as_current_span("theirs"):
        pass
    provider.shutdown()
    (row,) = stored_spans(1)
    assert row.workspace_id == other.pk
    assert not Span.objects.filter(workspace=workspace).exists()
