"""A rule on real OTLP traffic: the OpenTelemetry SDK's exporter sends spans to the live
server, the store's worker stores them, the sweep task (as beat sends it) samples them into an
online run, and the same worker scores them with the rule's code evaluator."""

import time

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from experiments.runs.bases import RunStatus
from online import tasks
from online.models import OnlineOutcome, OnlineRun
from traces.models import Span
from traces.services import ingest_key_issue

from .support import code_rule

pytestmark = pytest.mark.integration

ANSWERS = [("Paris is the capital of France.", "Paris")] * 4 + [("I do not know.", "Paris")] * 2


def _send(live_server, key: str, environment: str, answers, *, experiment: bool = False) -> None:
    provider = TracerProvider(
        resource=Resource.create(
            {"service.name": "support-bot", "deployment.environment": environment}
        )
    )
    exporter = OTLPSpanExporter(
        endpoint=f"{live_server.url}/otlp/v1/traces",
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
    )
    provider.add_span_processor(BatchSpanProcessor(exporter))
    tracer = provider.get_tracer("support-bot")
    for output, expected in answers:
        with tracer.start_as_current_span("chat") as span:
            span.set_attribute("openinference.span.kind", "LLM")
            span.set_attribute("input.value", "What is the capital of France?")
            span.set_attribute("output.value", output)
            span.set_attribute("expected", expected)
            if experiment:
                span.set_attribute("assay.experiment", "run-1")
    provider.shutdown()


def _wait(condition, what: str):
    for _ in range(1200):  # two minutes at most, for a busy machine
        if found := condition():
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_live_spans_are_sampled_and_scored_by_the_worker(
    celery_worker_inproc, live_server, workspace, user, settings
):
    settings.ASSAY_ONLINE_SWEEP_LAG_S = 0
    rule = code_rule(workspace, user)
    key = ingest_key_issue(workspace=workspace, name="bot").key
    _send(live_server, key, "production", ANSWERS)
    _send(live_server, key, "staging", ANSWERS[:2])
    _send(live_server, key, "production", ANSWERS[:2], experiment=True)
    _wait(lambda: Span.objects.filter(workspace=workspace).count() == 10, "10 stored spans")
    tasks.sweep_rules.delay()
    run = _wait(
        lambda: OnlineRun.objects.filter(rule=rule, status=RunStatus.COMPLETED).first(),
        "a completed online run",
    )
    assert (run.items_total, run.results_done) == (6, 6)
    outcomes = OnlineOutcome.objects.filter(rule=rule)
    assert sorted(outcomes.values_list("verdict", flat=True)) == ["fail"] * 2 + ["pass"] * 4
    scored = set(outcomes.values_list("span_id", flat=True))
    production = Span.objects.filter(environment="production").exclude(
        attributes__has_key="assay.experiment"
    )
    assert scored == set(production.values_list("span_id", flat=True))
    assert all(o.rate == 1.0 and o.latency_ms >= 0 for o in outcomes)
