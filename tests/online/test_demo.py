"""The demo's online rule: loading the demo (in-process, as `load_demo` does) makes the rule
once and backfills the demo agent's stored traces; scored, the timed-out tool call's trace
fails and the other two pass."""

import pytest

from assay.demo import demo_load
from online.demo import RULE
from online.kind import online_run_inline
from online.models import OnlineOutcome, OnlineRule
from traces.demo import SERVICE
from traces.models import Span, SpanStatus

pytestmark = pytest.mark.django_db


def test_the_demo_rule_scores_the_demo_agents_traces():
    workspace = demo_load()
    rule = OnlineRule.objects.get(workspace=workspace, name=RULE)
    assert (rule.scope, rule.environment) == ("trace", "demo")
    [run] = rule.runs.all()
    assert run.source == "backfill" and run.items_total == 3
    online_run_inline(run_id=run.pk)
    outcomes = {o.trace_id: o for o in OnlineOutcome.objects.filter(rule=rule)}
    failed_trace = Span.objects.get(
        workspace=workspace, service=SERVICE, status=SpanStatus.ERROR
    ).trace_id
    assert outcomes[failed_trace].verdict == "fail"
    assert sorted(o.verdict for o in outcomes.values()) == ["fail", "pass", "pass"]
    demo_load()  # every start loads the demo again: nothing new
    assert OnlineRule.objects.filter(workspace=workspace).count() == 1
    assert rule.runs.count() == 1


def test_the_demo_rule_has_an_alert_that_fired_and_resolved(client):
    workspace = demo_load()
    rule = OnlineRule.objects.get(workspace=workspace, name=RULE)
    [alert] = rule.alerts.all()
    assert (alert.metric, alert.mode, alert.is_open) == ("fail_rate", "statistical", False)
    assert [e.action for e in alert.events.all()] == ["resolved", "fired"]
    fired = alert.events.get(action="fired")
    assert fired.window_end <= rule.created_at and "fail rate fired" in fired.message
    demo_load()
    assert rule.alerts.count() == 1 and alert.events.count() == 2
