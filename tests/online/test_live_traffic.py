"""A rule on real OTLP traffic: the OpenTelemetry SDK's exporter sends spans to the live
server, the store's worker stores them, the sweep task (as beat sends it) samples them into an
online run, and the same worker scores them with the rule's code evaluator."""

import json
import time

import pytest

from experiments.runs.bases import RunStatus
from online import tasks
from online.models import OnlineOutcome, OnlineRun
from online.services import online_rule_create
from traces.models import Span
from traces.services import ingest_key_issue

from .support import code_rule, send_llm_spans

pytestmark = pytest.mark.integration

ANSWERS = [("Paris is the capital of France.", "Paris")] * 4 + [("I do not know.", "Paris")] * 2


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
    send_llm_spans(live_server, key, "production", ANSWERS)
    send_llm_spans(live_server, key, "staging", ANSWERS[:2])
    send_llm_spans(live_server, key, "production", ANSWERS[:2], marker=True)
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


def test_a_live_session_is_scored_once_it_goes_quiet(
    celery_worker_inproc, live_server, workspace, user, settings
):
    from tests.browser.test_sessions_browser import SESSION, TURNS, send_turns

    from .test_session_scope import echo_version

    settings.ASSAY_ONLINE_SWEEP_LAG_S = 0
    version = echo_version(workspace, user)
    mapping = {"conversation": "session:conversation", "reference_output": "session:first_input"}
    rule = online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": "chats", "scope": "session", "environment": "", "idle_seconds": 1},
        evaluators=[{"evaluator_version": version, "mapping": mapping}],
    )
    send_turns(live_server, ingest_key_issue(workspace=workspace, name="bot").key)
    _wait(lambda: Span.objects.filter(workspace=workspace).count() == 4, "4 stored spans")
    time.sleep(1.5)  # the session's idle time
    tasks.sweep_rules.delay()
    run = _wait(
        lambda: OnlineRun.objects.filter(rule=rule, status=RunStatus.COMPLETED).first(),
        "a completed online run",
    )
    outcome = OnlineOutcome.objects.get(rule=rule)
    assert (run.items_total, outcome.session_id, outcome.verdict) == (1, SESSION, "pass")
    messages = json.loads(outcome.reason)["evaluate_dataset_fields"]["conversation"]["messages"]
    assert [m["content"] for m in messages] == [text for turn in TURNS for text in turn]
