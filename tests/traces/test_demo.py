"""The demo workspace has traces at the first start: the support agent's three turns in two
sessions, made with the OpenTelemetry SDK. `load_demo` alone stores them in-process through the
endpoint's screening and storing; `make run` sends them through the SDK's OTLP/HTTP exporter
to the live server (`demo_send`; the whole `assay_run` path is in test_embedded_ingest.py)."""

import pytest

from assay.demo import demo_load
from traces.demo import SERVICE, demo_send
from traces.models import IngestKey, Span, SpanBatch, SpanKind, SpanStatus
from traces.selectors import span_tree, trace_spans

from .test_real_clients import stored_spans

pytestmark = pytest.mark.django_db(transaction=True)


def assert_the_demo_traces(workspace) -> None:
    spans = Span.objects.filter(workspace=workspace, service=SERVICE)
    assert spans.count() == 12
    assert spans.values("trace_id").distinct().count() == 3
    assert sorted(spans.values_list("kind", flat=True).distinct()) == sorted(
        [SpanKind.AGENT, SpanKind.LLM, SpanKind.RETRIEVER, SpanKind.TOOL]
    )
    assert set(spans.values_list("session_id", flat=True)) == {"demo-session-1", "demo-session-2"}
    [failed] = spans.filter(status=SpanStatus.ERROR)
    assert failed.kind == SpanKind.TOOL and "timed out" in failed.error
    chat = spans.filter(kind=SpanKind.LLM).order_by("start_time").first()
    assert chat.model == "qwen2.5:7b" and chat.tokens_in > 180 and chat.tokens_out > 0
    assert chat.input_text == "Where is my order 1042?"
    assert chat.output_text == "Order 1042 has shipped and arrives on Friday."
    assert [m["role"] for m in chat.input_messages["messages"]] == ["system", "user"]
    retrieval = spans.get(kind=SpanKind.RETRIEVER, trace_id=chat.trace_id)
    assert "Orders ship within 2 days" in retrieval.output_text
    assert retrieval.attributes["retrieval.documents.0.document.id"] == "policy-shipping"
    assert not SpanBatch.objects.exists()
    [root] = span_tree(trace_spans(workspace=workspace, trace_id=chat.trace_id))
    assert root["span"].kind == SpanKind.AGENT and len(root["children"]) == 3


def test_load_demo_stores_the_agent_traces_once_in_process():
    workspace = demo_load()
    assert_the_demo_traces(workspace)
    assert not IngestKey.objects.exists()  # nothing was sent
    demo_load()  # every start loads the demo again
    assert Span.objects.filter(workspace=workspace, service=SERVICE).count() == 12


def test_the_demo_agent_sends_through_the_exporter_to_a_live_server(
    celery_worker_inproc, live_server, settings
):
    settings.ASSAY_DEMO_TRACES_BY_EXPORTER = True  # as assay_run sets it
    workspace = demo_load()
    assert not Span.objects.exists()  # left to the exporter
    assert demo_send(workspace=workspace, base_url=live_server.url) == 12
    stored_spans(12)
    assert_the_demo_traces(workspace)
    key = IngestKey.objects.get(workspace=workspace)
    assert key.name == "Demo agent" and key.last_used_at is not None
    assert demo_send(workspace=workspace, base_url=live_server.url) == 0  # once
