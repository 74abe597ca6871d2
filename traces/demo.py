"""The demo's traces: a small support agent's production traffic, so a newcomer finds spans
under Traces within a minute of `make run`.

The agent (`demo_agent_run`) is instrumented with the OpenTelemetry SDK, as a team's app is:
GenAI semantic conventions on the agent, model and tool spans, OpenInference on the retriever.
Two sessions, three turns; one tool call times out.

- `make run` (`manage.py assay_run`) sends its spans through the SDK's OTLP/HTTP exporter to
  the server it just started, with a demo ingest key (`demo_send`, by the command
  `send_demo_traces` once the server answers): the endpoint, the queue and the worker store
  them as any exporter's.
- `manage.py load_demo` alone (no server) stores them in-process (`demo_load`): the same spans,
  encoded by the exporter's own encoder, through the endpoint's screening and storing.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from .ingest import otlp
from .models import Span as StoredSpan
from .models import SpanBatch
from .services.keys import ingest_key_issue
from .services.spans import span_batch_accept, span_batch_store

SERVICE = "demo-support-agent"
KEY_NAME = "Demo agent"
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
POLICIES = (  # the retriever's documents: id, relevance, text
    ("policy-shipping", 0.91, "Orders ship within 2 days; the carrier's tracking link follows."),
    ("policy-changes", 0.84, "Shipped orders cannot be edited; the carrier can hold a parcel."),
)


def demo_pending(*, workspace) -> bool:
    """Whether the demo's spans are stored or on their way (a start adds them once)."""
    stored = StoredSpan.objects.filter(workspace=workspace, service=SERVICE).exists()
    return stored or SpanBatch.objects.filter(workspace=workspace).exists()


def demo_load(*, workspace, user) -> None:
    """Store the demo agent's spans in-process, once; nothing when `make run` sends them
    through the exporter instead (`assay_run` sets ASSAY_DEMO_TRACES_BY_EXPORTER)."""
    if getattr(settings, "ASSAY_DEMO_TRACES_BY_EXPORTER", False) or demo_pending(
        workspace=workspace
    ):
        return
    memory = InMemorySpanExporter()
    _record(SimpleSpanProcessor(memory))
    message = encode_spans(memory.get_finished_spans())  # what the exporter would send
    screened = otlp.spans_screened(message, now=timezone.now())
    batch = span_batch_accept(
        workspace=workspace, message=screened.message, span_count=screened.accepted
    )
    span_batch_store(batch_id=batch.pk)  # now, not when a worker comes: no worker may run


def demo_send(*, workspace, base_url: str, timeout: float = 30) -> int:
    """Send the demo agent's spans to a running Assay at `base_url` through the SDK's
    OTLP/HTTP exporter with a new demo ingest key; how many spans were sent (0: already
    there)."""
    if demo_pending(workspace=workspace):
        return 0
    key = ingest_key_issue(workspace=workspace, name=KEY_NAME).key
    exporter = OTLPSpanExporter(
        endpoint=f"{base_url.rstrip('/')}/otlp/v1/traces",
        headers={"Authorization": f"Bearer {key}"},
        timeout=timeout,
    )
    return _record(BatchSpanProcessor(exporter))


def _record(processor) -> int:
    """Run the demo agent under a tracer provider of its own (never the global one) whose
    spans go to `processor`; shut down, so every span has left. How many spans it made."""
    resource = Resource.create({"service.name": SERVICE, "deployment.environment.name": "demo"})
    provider = TracerProvider(resource=resource)
    provider.add_span_processor(processor)
    try:
        return demo_agent_run(provider.get_tracer("assay.demo"))
    finally:
        provider.shutdown()


def demo_agent_run(tracer, *, now: datetime | None = None) -> int:
    """The support agent answering its three turns, half an hour ago, five minutes apart;
    each turn an agent span with its retrieval, model call and tool call. Spans made."""
    start = (now or timezone.now()) - timedelta(minutes=30)
    for index, turn in enumerate(TURNS):
        _turn(tracer, *turn, start=start + timedelta(minutes=5 * index))
    return 4 * len(TURNS)


def _turn(tracer, session, question, order, result, answer, *, start: datetime) -> None:
    agent = tracer.start_span(
        "invoke_agent support",
        start_time=_ns(start),
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": session},
    )
    inside = trace.set_span_in_context(agent)
    _retrieval(tracer, inside, question, session, start + timedelta(milliseconds=20))
    _chat(tracer, inside, question, answer, session, start + timedelta(milliseconds=220))
    _tool(tracer, inside, order, result, session, start + timedelta(milliseconds=2150))
    agent.end(end_time=_ns(start + timedelta(milliseconds=2400 if result else 7400)))


def _retrieval(tracer, parent, question: str, session: str, start: datetime) -> None:
    attributes = {"openinference.span.kind": "RETRIEVER", "session.id": session}
    attributes["input.value"] = question
    for index, (doc_id, score, text) in enumerate(POLICIES):
        prefix = f"retrieval.documents.{index}.document"
        attributes |= {f"{prefix}.id": doc_id, f"{prefix}.score": score}
        attributes[f"{prefix}.content"] = text
    span = tracer.start_span(
        "retrieve policies", context=parent, start_time=_ns(start), attributes=attributes
    )
    span.end(end_time=_ns(start + timedelta(milliseconds=180)))


def _chat(tracer, parent, question: str, answer: str, session: str, start: datetime) -> None:
    messages = [{"role": "user", "parts": [{"type": "text", "content": question}]}]
    output = [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": MODEL,
        "gen_ai.conversation.id": session,
        "gen_ai.system_instructions": json.dumps([{"type": "text", "content": SYSTEM}]),
        "gen_ai.input.messages": json.dumps(messages),
        "gen_ai.output.messages": json.dumps(output),
        "gen_ai.usage.input_tokens": 180 + 7 * len(question),
        "gen_ai.usage.output_tokens": 4 * len(answer.split()),
    }
    span = tracer.start_span(
        f"chat {MODEL}", context=parent, start_time=_ns(start), attributes=attributes
    )
    span.end(end_time=_ns(start + timedelta(milliseconds=1900)))


def _tool(tracer, parent, order: str, result: str | None, session: str, start) -> None:
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.conversation.id": session,
        "gen_ai.tool.name": "get_order",
        "gen_ai.tool.call.arguments": json.dumps({"order_id": order}),
    }
    span = tracer.start_span(
        "execute_tool get_order", context=parent, start_time=_ns(start), attributes=attributes
    )
    end = start + timedelta(milliseconds=200 if result else 5000)
    if result is None:
        span.set_attribute("error.type", "TimeoutError")
        span.set_status(Status(StatusCode.ERROR, "order service timed out after 5 s"))
    else:
        span.set_attribute("gen_ai.tool.call.result", json.dumps({"status": result}))
    span.end(end_time=_ns(end))


def _ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1e9)
