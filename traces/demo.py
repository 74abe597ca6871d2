"""The demo's traces: a small support agent's production traffic, so a newcomer finds spans
under Traces at the first `make run`.

The spans are written as an exporter sends them (an OTLP `ExportTraceServiceRequest` with the
GenAI semantic conventions, and OpenInference on the retriever) and go through the same
screening, queue and storing as `POST /otlp/v1/traces`: what the demo shows is what ingestion
makes of real traffic. Two sessions, three traces; one tool call fails.
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timedelta

from django.utils import timezone
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

from . import otlp
from .models import Span as StoredSpan
from .services.spans import span_batch_accept, span_batch_store

SERVICE = "demo-support-agent"
MODEL = "qwen2.5:7b"
SYSTEM = "You answer customers of an online shop. Look orders up before you answer."
TURNS = (  # session, question, order, tool result (None: the tool fails), answer
    ("demo-session-1", "Where is my order 1042?", "1042", "shipped, arrives Friday",
     "Order 1042 has shipped and arrives on Friday."),
    ("demo-session-1", "Can I still change the address?", "1042", "shipped, arrives Friday",
     "It has shipped, so the address can no longer change; the carrier can hold it for you."),
    ("demo-session-2", "Status of order 77?", "77", None,
     "Sorry, I cannot reach the order system right now. Please try again in a few minutes."),
)  # fmt: skip


def demo_load(*, workspace, user) -> None:
    """Store the demo agent's traces once (a later start finds them and adds nothing)."""
    if StoredSpan.objects.filter(workspace=workspace, service=SERVICE).exists():
        return
    start = timezone.now() - timedelta(minutes=30)
    message = ExportTraceServiceRequest()
    resource_spans = message.resource_spans.add()
    resource_spans.resource.attributes.extend(
        _attributes({"service.name": SERVICE, "deployment.environment.name": "demo"})
    )
    spans = resource_spans.scope_spans.add().spans
    for index, turn in enumerate(TURNS):
        spans.extend(_turn_spans(*turn, start=start + timedelta(minutes=5 * index)))
    screened = otlp.spans_screened(message, now=timezone.now())
    batch = span_batch_accept(
        workspace=workspace, message=screened.message, span_count=screened.accepted
    )
    span_batch_store(batch_id=batch.pk)  # now, not when a worker comes: the demo is there at once


def _turn_spans(session, question, order, result, answer, *, start: datetime) -> list[Span]:
    """One customer turn: the agent, its retrieval, its model call and its tool call."""
    trace_id = secrets.token_bytes(16)
    agent = _span(trace_id, None, "invoke_agent support", start, 2400 if result else 7400)
    agent.attributes.extend(
        _attributes({"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": session})
    )
    return [
        agent,
        _retrieval(trace_id, agent.span_id, question, session, start + timedelta(milliseconds=20)),
        _chat(trace_id, agent.span_id, question, answer, session, start),
        _tool(
            trace_id, agent.span_id, order, result, session, start + timedelta(milliseconds=2150)
        ),
    ]


def _retrieval(trace_id, parent, question: str, session: str, start: datetime) -> Span:
    span = _span(trace_id, parent, "retrieve policies", start, 180)
    span.attributes.extend(
        _attributes(
            {
                "openinference.span.kind": "RETRIEVER",
                "session.id": session,
                "input.value": question,
                "retrieval.documents.0.document.content": "Orders ship within 2 days.",
                "retrieval.documents.1.document.content": "Shipped orders cannot be edited.",
            }
        )
    )
    return span


def _chat(trace_id, parent, question: str, answer: str, session: str, start: datetime) -> Span:
    span = _span(trace_id, parent, f"chat {MODEL}", start + timedelta(milliseconds=220), 1900)
    messages = [{"role": "user", "parts": [{"type": "text", "content": question}]}]
    output = [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
    span.attributes.extend(
        _attributes(
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": MODEL,
                "gen_ai.conversation.id": session,
                "gen_ai.system_instructions": json.dumps([{"type": "text", "content": SYSTEM}]),
                "gen_ai.input.messages": json.dumps(messages),
                "gen_ai.output.messages": json.dumps(output),
                "gen_ai.usage.input_tokens": 180 + 7 * len(question),
                "gen_ai.usage.output_tokens": 4 * len(answer.split()),
            }
        )
    )
    return span


def _tool(trace_id, parent, order: str, result: str | None, session: str, start) -> Span:
    span = _span(trace_id, parent, "execute_tool get_order", start, 200 if result else 5000)
    fields = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.conversation.id": session,
        "gen_ai.tool.name": "get_order",
        "gen_ai.tool.call.arguments": json.dumps({"order_id": order}),
    }
    if result is None:
        span.status.code = Status.STATUS_CODE_ERROR
        span.status.message = "order service timed out after 5 s"
        fields["error.type"] = "TimeoutError"
    else:
        fields["gen_ai.tool.call.result"] = json.dumps({"status": result})
    span.attributes.extend(_attributes(fields))
    return span


def _span(trace_id: bytes, parent: bytes | None, name: str, start: datetime, ms: int) -> Span:
    nanos = int(start.timestamp() * 1e9)
    return Span(
        trace_id=trace_id,
        span_id=secrets.token_bytes(8),
        parent_span_id=parent or b"",
        name=name,
        kind=Span.SPAN_KIND_INTERNAL,
        start_time_unix_nano=nanos,
        end_time_unix_nano=nanos + ms * 1_000_000,
    )


def _attributes(values: dict) -> list[KeyValue]:
    def any_value(value) -> AnyValue:
        return AnyValue(int_value=value) if isinstance(value, int) else AnyValue(string_value=value)

    return [KeyValue(key=key, value=any_value(value)) for key, value in values.items()]
