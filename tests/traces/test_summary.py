"""The per-trace summary the worker keeps: the same figures whatever order and batches the
spans come in, an exporter's retry counted once, and retention dropping it with the spans."""

import itertools
from datetime import timedelta

import pytest
from django.db.models import Count, Max, Min, Sum
from django.utils import timezone
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from traces.models import Span, SpanBatch, TraceSummary
from traces.services import ingest_key_issue, span_batch_store, spans_retention_apply

from .support import TRACE, export, post, span

pytestmark = pytest.mark.django_db
SECOND = 1_000_000_000


def spans_of_a_trace():
    """A root (service "gateway", a session), an LLM child with tokens and cost, a failing
    tool child, and a grandchild with another model; starts a second apart."""
    root = span(
        1, name="agent run", openinference__span__kind="AGENT", session__id="s-1", user__id="u-7"
    )
    llm = span(
        2,
        parent=1,
        name="chat",
        gen_ai__operation__name="chat",
        gen_ai__request__model="m-1",
        gen_ai__usage__input_tokens=100,
        gen_ai__usage__output_tokens=20,
        gen_ai__usage__cost=0.25,
    )
    tool = span(3, parent=1, name="search", gen_ai__operation__name="execute_tool")
    tool.status.CopyFrom(Status(code=Status.STATUS_CODE_ERROR, message="timeout"))
    deep = span(4, parent=2, name="inner", llm__model_name="m-2", llm__token_count__prompt=5)
    for offset, item in enumerate((root, llm, tool, deep)):
        item.start_time_unix_nano += offset * SECOND
        item.end_time_unix_nano = item.start_time_unix_nano + (3 - offset) * SECOND + 1
    return {1: root, 2: llm, 3: tool, 4: deep}


@pytest.fixture
def send(client, workspace):
    key = ingest_key_issue(workspace=workspace, name="tests").key

    def send_and_store(*spans, service="gateway"):
        answer = post(client, export(*spans, service=service).SerializeToString(), key)
        assert answer.status_code == 200, answer.content
        for batch_id in SpanBatch.objects.order_by("pk").values_list("pk", flat=True):
            span_batch_store(batch_id=batch_id)

    return send_and_store


def summary_figures() -> tuple:
    s = TraceSummary.objects.get(trace_id=TRACE.hex())
    return (
        s.has_root,
        s.root_name,
        s.service,
        s.session_id,
        s.user_id,
        s.span_count,
        s.error_count,
        s.tokens_in,
        s.tokens_out,
        s.tokens_total,
        round(s.cost, 6),
        s.models_seen,
        s.kinds_seen,
        s.start_time,
        s.end_time,
        round(s.duration_ms, 3),
    )


def spans_figures() -> dict:
    return Span.objects.filter(trace_id=TRACE.hex()).aggregate(
        first=Min("start_time"), last=Max("end_time"), n=Count("id"), tokens=Sum("tokens_in")
    )


EXPECTED = {
    "has_root": True,
    "root_name": "agent run",
    "service": "gateway",
    "session_id": "s-1",
    "user_id": "u-7",
    "span_count": 4,
    "error_count": 1,
    "tokens_in": 105,
    "tokens_out": 20,
    "tokens_total": 125,
    "cost": 0.25,
    "models_seen": "|m-1|m-2|",
    "kinds_seen": "|agent|llm|other|tool|",
}


def test_spans_in_one_batch_make_the_summary(send):
    spans = spans_of_a_trace()
    send(*spans.values())
    figures = summary_figures()
    assert dict(zip(EXPECTED, figures[:13], strict=True)) == EXPECTED
    real = spans_figures()
    assert (figures[13], figures[14]) == (real["first"], real["last"])
    assert figures[15] == pytest.approx((real["last"] - real["first"]).total_seconds() * 1000)


@pytest.mark.parametrize(
    "batches",
    [
        [(4,), (3,), (2,), (1,)],  # children first, the root last, one span a batch
        [(2, 4), (1,), (3,)],
        [(3, 4), (3, 4), (1, 2), (2, 1, 4)],  # an exporter's retries resend stored spans
    ],
)
def test_any_order_and_retries_make_the_same_summary(send, batches):
    spans = spans_of_a_trace()
    for batch in batches:
        send(*(spans[n] for n in batch))
    assert Span.objects.count() == 4
    figures = summary_figures()
    assert dict(zip(EXPECTED, figures[:13], strict=True)) == EXPECTED
    real = spans_figures()
    assert (figures[13], figures[14]) == (real["first"], real["last"])


def test_the_root_gives_the_service_when_it_comes(send):
    spans = spans_of_a_trace()
    send(spans[2], service="llm-proxy")  # a child from another service first
    assert TraceSummary.objects.get().service == "llm-proxy"
    assert not TraceSummary.objects.get().has_root
    send(spans[1], service="gateway")
    summary = TraceSummary.objects.get()
    assert (summary.service, summary.root_name, summary.span_count) == ("gateway", "agent run", 2)


def test_every_permutation_of_single_span_batches_adds_up(send):
    spans = spans_of_a_trace()
    results = set()
    for order in itertools.islice(itertools.permutations(spans), 0, 24, 5):
        Span.objects.all().delete()
        TraceSummary.objects.all().delete()
        for n in order:
            send(spans[n])
        results.add(summary_figures()[:13])
    assert results == {tuple(EXPECTED.values())}


def test_retention_drops_the_summaries_of_dropped_spans(send, settings):
    send(*spans_of_a_trace().values())
    assert TraceSummary.objects.count() == 1
    # retention as the hourly task applies it, once the spans' day is past the retention
    later = timezone.now() + timedelta(days=settings.ASSAY_TRACE_RETENTION_DAYS + 2)
    spans_retention_apply(now=later)
    assert not TraceSummary.objects.exists()
    assert not Span.objects.exists()


@pytest.mark.integration
def test_the_sdk_exporter_sending_children_first_makes_the_summary(
    celery_worker_inproc, live_server, workspace
):
    """The OpenTelemetry SDK's exporter with a SimpleSpanProcessor sends each span as it
    ends: the children reach the store before their root, each in a request of its own."""
    from opentelemetry.trace import Status as SdkStatus
    from opentelemetry.trace import StatusCode

    from .test_real_clients import provider_for, stored_spans

    key = ingest_key_issue(workspace=workspace, name="sdk").key
    provider = provider_for(live_server, key)
    tracer = provider.get_tracer("summary")
    with tracer.start_as_current_span("agent run") as root:
        root.set_attribute("gen_ai.conversation.id", "conv-1")
        with tracer.start_as_current_span("chat") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.request.model", "m-1")
            chat.set_attribute("gen_ai.usage.input_tokens", 30)
            chat.set_attribute("gen_ai.usage.output_tokens", 4)
        with tracer.start_as_current_span("search") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_status(SdkStatus(StatusCode.ERROR, "down"))
        trace_id = f"{root.get_span_context().trace_id:032x}"
    provider.shutdown()
    spans = stored_spans(3)
    summary = TraceSummary.objects.get(trace_id=trace_id)
    assert (summary.span_count, summary.error_count, summary.tokens_total) == (3, 1, 34)
    assert (summary.root_name, summary.service, summary.session_id) == (
        "agent run",
        "demo-agent",
        "conv-1",
    )
    assert summary.start_time == min(s.start_time for s in spans)
    assert summary.end_time == max(s.end_time for s in spans)
    assert (summary.models_seen, summary.kinds_seen) == ("|m-1|", "|llm|other|tool|")
