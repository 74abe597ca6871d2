"""From a queued batch to stored spans: the conventions normalised into typed columns, a
retried span stored once, late children attached, attribute caps marked, costs priced from
the workspace's provider, retention."""

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from opentelemetry.proto.trace.v1.trace_pb2 import Span as OtlpSpan
from opentelemetry.proto.trace.v1.trace_pb2 import Status

from assay.models import ModelProvider
from traces.ingest.storing import partition_name
from traces.models import Span, SpanBatch, SpanKind, SpanStatus
from traces.services import ingest_key_issue, span_batch_store, spans_retention_apply

from .support import export, kv, post, span

pytestmark = pytest.mark.django_db


@pytest.fixture
def send(client, workspace):
    key = ingest_key_issue(workspace=workspace, name="tests").key

    def send_and_store(*spans):
        answer = post(client, export(*spans).SerializeToString(), key)
        assert answer.status_code == 200, answer.content
        for batch_id in SpanBatch.objects.order_by("pk").values_list("pk", flat=True):
            span_batch_store(batch_id=batch_id)

    return send_and_store


def stored(span_id: int) -> Span:
    return Span.objects.get(span_id=span_id.to_bytes(8, "big").hex())


GENAI_INPUT = [
    {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]},
    {
        "role": "assistant",
        "parts": [
            {"type": "tool_call", "id": "c1", "name": "weather", "arguments": {"city": "Paris"}}
        ],
    },
    {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "rain"}]},
]
GENAI_OUTPUT = [
    {
        "role": "assistant",
        "parts": [{"type": "text", "content": "It rains."}],
        "finish_reason": "stop",
    }
]


def test_genai_semantic_conventions(send, workspace):
    ModelProvider.objects.create(
        workspace=workspace,
        name="p",
        base_url="https://llm.example/v1",
        default_model="gpt-x",
        prices={"gpt-x-2026": {"input": 2.0, "output": 10.0}},
    )
    send(
        span(
            1,
            name="chat gpt-x",
            gen_ai__operation__name="chat",
            gen_ai__request__model="gpt-x",
            gen_ai__response__model="gpt-x-2026",
            gen_ai__usage__input_tokens=1000,
            gen_ai__usage__output_tokens=100,
            gen_ai__conversation__id="conv-7",
            gen_ai__system_instructions=json.dumps([{"type": "text", "content": "Be brief."}]),
            gen_ai__input__messages=json.dumps(GENAI_INPUT),
            gen_ai__output__messages=json.dumps(GENAI_OUTPUT),
            deployment__environment__name="prod",
        ),
        span(
            2,
            parent=1,
            gen_ai__operation__name="execute_tool",
            gen_ai__tool__name="weather",
            gen_ai__tool__call__arguments='{"city": "Paris"}',
            gen_ai__tool__call__result="rain",
        ),
    )
    llm = stored(1)
    assert (llm.kind, llm.model, llm.tokens_in, llm.tokens_out) == ("llm", "gpt-x-2026", 1000, 100)
    assert llm.cost == pytest.approx((1000 * 2.0 + 100 * 10.0) / 1e6)
    assert (llm.session_id, llm.environment, llm.service) == ("conv-7", "prod", "shop-agent")
    messages = llm.input_messages["messages"]
    assert llm.input_messages["content_type"] == "Conversation"
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool"]
    assert messages[2]["tool_calls"][0]["function"] == {
        "name": "weather",
        "arguments": '{"city": "Paris"}',
    }
    assert messages[3] == {"role": "tool", "content": "rain", "tool_call_id": "c1"}
    assert llm.output_messages["messages"] == [{"role": "assistant", "content": "It rains."}]
    assert (llm.input_text, llm.output_text) == ("Weather in Paris?", "It rains.")
    tool = stored(2)
    assert (tool.kind, tool.input_text, tool.output_text) == ("tool", '{"city": "Paris"}', "rain")
    assert tool.parent_span_id == llm.span_id and tool.trace_id == llm.trace_id


def test_the_older_genai_per_message_events(send):
    old = span(1, gen_ai__system="openai", gen_ai__request__model="m-1")
    for name, attributes in (
        ("gen_ai.system.message", {"content": "Be kind."}),
        ("gen_ai.user.message", {"content": "Hello"}),
        ("gen_ai.choice", {"message": json.dumps({"role": "assistant", "content": "Hi!"})}),
    ):
        old.events.append(
            OtlpSpan.Event(name=name, attributes=[kv(k, v) for k, v in attributes.items()])
        )
    send(old)
    row = stored(1)
    assert row.model == "m-1"
    assert [m["content"] for m in row.input_messages["messages"]] == ["Be kind.", "Hello"]
    assert row.output_text == "Hi!"


def test_openinference(send):
    send(
        span(
            1,
            openinference__span__kind="LLM",
            llm__model_name="gpt-4o-mini",
            llm__token_count__prompt=12,
            llm__token_count__completion=3,
            llm__cost__total=0.5,
            session__id="s-1",
            user__id="u-9",
            input__value='{"messages": []}',
            output__value="Paris.",
            **{
                "llm.input_messages.0.message.role": "system",
                "llm.input_messages.0.message.content": "Answer briefly.",
                "llm.input_messages.1.message.role": "user",
                "llm.input_messages.1.message.contents.0.message_content.text": "France?",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.tool_calls.0.tool_call.id": "t1",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "lookup",
                "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{}",
            },
        ),
        span(
            2,
            parent=1,
            openinference__span__kind="RETRIEVER",
            **{
                "retrieval.documents.0.document.content": "doc A",
                "retrieval.documents.1.document.content": "doc B",
            },
        ),
    )
    row = stored(1)
    assert (row.kind, row.model, row.tokens_in, row.tokens_out, row.cost) == (
        "llm",
        "gpt-4o-mini",
        12,
        3,
        0.5,
    )
    assert (row.session_id, row.user_id) == ("s-1", "u-9")
    assert [m["content"] for m in row.input_messages["messages"]] == [
        "Answer briefly.",
        "France?",
    ]
    assert row.output_messages["messages"][0]["tool_calls"][0]["function"]["name"] == "lookup"
    assert (row.input_text, row.output_text) == ("France?", "Paris.")  # messages win
    retriever = stored(2)
    assert (retriever.kind, retriever.output_text) == ("retriever", "doc A\n\ndoc B")


def test_status_errors_and_exception_events(send):
    failed = span(1)
    failed.status.CopyFrom(Status(code=Status.STATUS_CODE_ERROR, message="boom"))
    failed.events.append(
        OtlpSpan.Event(
            name="exception",
            attributes=[
                kv("exception.type", "TimeoutError"),
                kv("exception.message", "upstream took too long"),
            ],
        )
    )
    fine = span(2)
    fine.status.CopyFrom(Status(code=Status.STATUS_CODE_OK))
    send(failed, fine)
    assert (stored(1).status, stored(1).error) == (
        SpanStatus.ERROR,
        "TimeoutError: upstream took too long",
    )
    assert (stored(2).status, stored(2).error, stored(2).kind) == (
        SpanStatus.OK,
        "",
        SpanKind.OTHER,
    )
    assert stored(1).duration_ms == pytest.approx(1.5)


def test_a_late_parent_and_a_retried_span(send):
    send(span(3, parent=2, name="grandchild"))
    send(span(2, parent=1, name="child"))
    send(span(1, name="root"), span(3, parent=2, name="grandchild"))  # the retry sends 3 again
    rows = {s.name: s for s in Span.objects.all()}
    assert sorted(rows) == ["child", "grandchild", "root"]
    assert rows["grandchild"].parent_span_id == rows["child"].span_id
    assert rows["child"].parent_span_id == rows["root"].span_id
    assert rows["root"].parent_span_id == ""
    assert not SpanBatch.objects.exists()


def test_big_attributes_are_cut_and_marked(send):
    attrs = {f"k{i}": "v" for i in range(250)}
    send(span(1, big="é" * 20_000, **attrs))
    kept = stored(1).attributes
    assert kept["big"].startswith("é" * 100) and "truncated" in kept["big"]
    assert len(kept["big"].encode()) < 9 * 1024
    assert kept["assay.dropped_attributes"] == 51  # 251 attributes, 200 kept


def test_a_batch_stored_twice_stores_once(client, workspace):
    key = ingest_key_issue(workspace=workspace, name="tests").key
    post(client, export(span(1), span(2)).SerializeToString(), key)
    batch_id = SpanBatch.objects.get().pk
    assert span_batch_store(batch_id=batch_id) == 2
    assert span_batch_store(batch_id=batch_id) == 0
    assert Span.objects.count() == 2


def test_retention_forgets_old_spans(send):
    send(span(1))
    now = timezone.now()
    assert spans_retention_apply(now=now) == 0
    assert Span.objects.count() == 1
    later = now + timedelta(days=32)
    assert spans_retention_apply(now=later) >= 1
    assert Span.objects.count() == 0
    if connection.vendor == "postgresql":
        # the old day's partition is gone; the day of `later` and the next are made ahead
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                "WHERE i.inhparent = 'traces_span'::regclass ORDER BY 1"
            )
            names = [name for (name,) in cursor.fetchall()]
        days = [later.date(), (later + timedelta(days=1)).date()]
        assert names == [partition_name(day) for day in days]


@pytest.mark.django_db(transaction=True)
def test_spans_inserted_outside_a_transaction_are_stored(workspace):
    # in autocommit, PostgreSQL's staging table emptied at the COPY's own commit and nothing
    # reached the store (a session rule's browser test found no session to score)
    from tests.online.support import llm_span
    from traces.ingest.storing import rows_insert
    from traces.models import TraceSummary

    assert connection.get_autocommit()
    spans = [llm_span(workspace, output="Paris", expected="Paris") for _ in range(3)]
    rows_insert(spans)
    assert Span.objects.filter(workspace=workspace).count() == 3
    assert TraceSummary.objects.filter(workspace=workspace).count() == 3
