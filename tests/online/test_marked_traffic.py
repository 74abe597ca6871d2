"""Experiment traffic is never scored, end to end: a small real app, instrumented with the
OpenTelemetry SDK as a team would instrument theirs — it extracts the incoming W3C trace
context and baggage, copies baggage entries onto its spans with OpenTelemetry's baggage span
processor, and exports through the SDK's OTLP/HTTP exporter to the live server. An experiment
with an HTTP target calls it (each request carrying `baggage: assay.experiment=<run id>`), plain
traffic calls it too; a production rule then scores every plain span and none of the
experiment's. Without the mark on the target's requests the rule would score both."""

import json
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.utils import timezone
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.processor.baggage import ALLOW_ALL_BAGGAGE_KEYS, BaggageSpanProcessor
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from assay.vocabulary import EXPERIMENT_MARKER
from experiments import scoring as engine
from experiments import services
from online.kind import online_run_inline
from online.models import OnlineOutcome
from online.services import online_sweep
from tests.support.background import BackgroundServer
from tests.support.factories import make_code_version, make_evalset_version
from traces.models import Span
from traces.services import ingest_key_issue

from .support import code_rule

pytestmark = pytest.mark.integration

# what the app reads from a request: W3C trace context and baggage, as the SDK's default
PROPAGATOR = CompositePropagator([TraceContextTextMapPropagator(), W3CBaggagePropagator()])
ANSWERS = {"capital of France?": "Paris", "capital of Italy?": "Rome", "of Spain?": "Madrid"}
QUESTIONS = list(ANSWERS)


class TracedApp(BackgroundServer):
    """`POST /answer {"question"}` → `{"answer"}`, one LLM span a request, exported to Assay."""

    def __init__(self, live_server, key: str) -> None:
        resource = Resource.create(
            {"service.name": "capitals", "deployment.environment": "production"}
        )
        self.provider = TracerProvider(resource=resource)
        # the documented pattern: baggage the request brought becomes attributes of its spans
        self.provider.add_span_processor(BaggageSpanProcessor(ALLOW_ALL_BAGGAGE_KEYS))
        exporter = OTLPSpanExporter(
            endpoint=f"{live_server.url}/otlp/v1/traces",
            headers={"Authorization": f"Bearer {key}"},
            timeout=60,  # a busy 2-core machine: the export must not give up first
        )
        self.provider.add_span_processor(SimpleSpanProcessor(exporter))
        self.tracer = self.provider.get_tracer("capitals")

    def _make_server(self, port: int):
        tracer = self.tracer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format, *args):  # noqa: A002 - stdlib signature
                pass

            def do_POST(self):  # noqa: N802 - stdlib naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                context = PROPAGATOR.extract(dict(self.headers.items()))
                with tracer.start_as_current_span("answer", context=context) as span:
                    answer = ANSWERS[body["question"]]
                    span.set_attribute("openinference.span.kind", "LLM")
                    span.set_attribute("input.value", body["question"])
                    span.set_attribute("output.value", answer)
                    span.set_attribute("expected", answer)
                data = json.dumps({"answer": answer}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return ThreadingHTTPServer(("127.0.0.1", port), Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/answer"

    def ask(self, question: str) -> None:
        """A user's request: no trace context, no baggage."""
        data = json.dumps({"question": question}).encode()
        request = urllib.request.Request(
            self.url, data=data, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert answer.status == 200


def _stored(workspace, count: int) -> list[Span]:
    for _ in range(1200):  # two minutes at most, for a busy machine
        spans = list(Span.objects.filter(workspace=workspace))
        if len(spans) >= count:
            return spans
        time.sleep(0.1)
    raise AssertionError(f"{len(spans)} of {count} spans stored")


def _experiment(workspace, user, app):
    columns = [
        {"name": n, "content_type": "Text", "required": False, "description": ""}
        for n in ("question", "reference_output")
    ]
    rows = [{"question": q, "reference_output": ANSWERS[q]} for q in QUESTIONS]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, columns=columns)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="capitals",
        evalset_version=version,
        bindings=[{"evaluator_version": make_code_version(workspace=workspace, user=user)}],
        target={
            "kind": "http",
            "url": app.url,
            "body": {"question": "{{question}}"},
            "output": "answer",
        },
        launch=True,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def test_a_rule_scores_plain_traffic_and_never_the_experiments(
    celery_worker_inproc, live_server, workspace, user
):
    rule = code_rule(workspace, user)  # production LLM spans, from now on
    app = TracedApp(live_server, ingest_key_issue(workspace=workspace, name="app").key).start()
    try:
        for question in QUESTIONS[:2]:
            app.ask(question)
        plain = {s.span_id for s in _stored(workspace, 2)}
        experiment = _experiment(workspace, user, app)
    finally:
        app.stop()
        app.provider.shutdown()
    assert experiment.status == "completed"
    spans = _stored(workspace, len(QUESTIONS) + 2)
    run = online_sweep(rule_id=rule.pk, now=timezone.now() + timezone.timedelta(minutes=1))
    online_run_inline(run_id=run.pk)
    outcomes = OnlineOutcome.objects.filter(rule=rule)
    assert set(outcomes.values_list("span_id", flat=True)) == plain
    assert sorted(outcomes.values_list("verdict", flat=True)) == ["pass", "pass"]
    # what kept them out: the app copied the run's mark from the target's requests onto them
    marked = {
        s.span_id: s.attributes.get(EXPERIMENT_MARKER) for s in spans if s.span_id not in plain
    }
    assert list(marked.values()) == [str(experiment.public_id)] * len(QUESTIONS)
