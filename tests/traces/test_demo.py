"""The demo workspace has traces at the first start: the support agent's three turns in two
sessions, through the same screening and storing as the OTLP endpoint, once."""

import pytest

from assay.demo import demo_load
from traces.models import Span, SpanBatch, SpanKind, SpanStatus
from traces.selectors import span_tree, trace_spans

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_demo_loads_the_agent_traces_once():
    workspace = demo_load()
    spans = Span.objects.filter(workspace=workspace, service="demo-support-agent")
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
    assert "Orders ship within 2 days." in retrieval.output_text
    assert not SpanBatch.objects.exists()  # stored at once, nothing left for a worker

    [root] = span_tree(trace_spans(workspace=workspace, trace_id=chat.trace_id))
    assert root["span"].kind == SpanKind.AGENT and len(root["children"]) == 3

    demo_load()  # every start loads the demo again
    assert Span.objects.filter(workspace=workspace, service="demo-support-agent").count() == 12
