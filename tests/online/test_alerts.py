"""Alerts on online rules decided on stored outcomes: a fabricated rise of the fail rate fires
once, resolves when the windows are back, is recorded once however often a window is
evaluated, reaches a webhook endpoint's deliveries; the raw threshold mode; volume against its
own windows; the strata weigh a lowered sampling rate honestly."""

import secrets
from datetime import UTC, datetime, timedelta

import pytest

from assay.vocabulary import EventType, ResultStatus, Verdict
from notifications.models import Delivery, Event
from notifications.services import endpoint_create
from online.models import AlertEvent, OnlineOutcome, OnlineRule, RuleAlert, RuleStratum
from online.services import rule_alert_create, rule_alert_evaluate, rule_alerts_evaluate
from online.services.alerts import alert_history, readiness

from .support import code_rule

pytestmark = pytest.mark.django_db

START = datetime(2026, 11, 1, tzinfo=UTC)
HOUR = timedelta(hours=1)


def traffic(rule, hour: int, *, fails: int, passes: int, rate: float = 1.0, eligible=None):
    """One hour of stored outcomes (decided fails and passes) and its stratum."""
    evaluator = rule.evaluators.get()
    at = START + HOUR * hour
    RuleStratum.objects.create(
        rule=rule, hour=at, rate=rate, eligible=eligible or fails + passes, sampled=fails + passes
    )
    OnlineOutcome.objects.bulk_create(
        OnlineOutcome(
            rule=rule,
            rule_evaluator=evaluator,
            trace_id=secrets.token_hex(16),
            span_id=secrets.token_hex(8),
            item_time=at + timedelta(minutes=i % 60),
            rate=rate,
            status=ResultStatus.SUCCESS,
            verdict=Verdict.FAIL if i < fails else Verdict.PASS,
            cost=0.001,
        )
        for i in range(fails + passes)
    )


def closed(rule, hours: int):
    """A time when the window ending START + `hours` has closed and its late items are in."""
    return START + HOUR * hours + readiness(rule) + timedelta(minutes=1)


@pytest.fixture
def rule(workspace, user):
    rule = code_rule(workspace, user)
    OnlineRule.objects.filter(pk=rule.pk).update(created_at=START)
    rule.refresh_from_db()
    # 30 quiet hours at 5 %, two at 40 %, then quiet again (100 items an hour)
    for hour in range(40):
        fails = 40 if hour in (30, 31) else 5
        traffic(rule, hour, fails=fails, passes=100 - fails)
    return rule


def _from(alert, hour: int):
    RuleAlert.objects.filter(pk=alert.pk).update(evaluated_until=START + HOUR * hour)


def _history(alert):
    return [(e.action, e.window_start) for e in alert.events.order_by("window_start", "pk")]


def test_a_rise_fires_once_and_resolves_when_the_windows_are_back(rule, user):
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    assert (alert.direction, alert.rule_evaluator, alert.mode) == (
        "rise",
        rule.evaluators.get(),
        "statistical",
    )
    _from(alert, 24)
    events = rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 40))
    assert [(e.action, e.window_start) for e in events] == [
        ("fired", START + HOUR * 30),
        ("resolved", START + HOUR * 33),  # the last two windows (32, 33) are back
    ]
    fired = events[0]
    assert fired.value == pytest.approx(0.4) and fired.baseline == pytest.approx(0.05)
    assert fired.test == "window" and fired.z > 5 and fired.n == 100
    assert "fail rate fired" in fired.message and "40.0%" in fired.message
    alert.refresh_from_db()
    assert (alert.is_open, alert.quiet_for, alert.evaluated_until) == (False, 6, START + HOUR * 40)


def test_evaluated_twice_a_window_is_recorded_once(rule, user, workspace):
    endpoint, _ = endpoint_create(
        workspace=workspace,
        user=user,
        url="http://127.0.0.1:9/hook",
        events=[EventType.ALERT_FIRED, EventType.ALERT_RESOLVED],
    )
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    _from(alert, 24)
    assert rule_alerts_evaluate(now=closed(rule, 31)) == 1
    assert rule_alerts_evaluate(now=closed(rule, 31)) == 0  # nothing new closed
    # a worker that decides window 30 again (its state read before the first one saved)
    RuleAlert.objects.filter(pk=alert.pk).update(evaluated_until=START + HOUR * 30, is_open=False)
    assert rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 31)) == []
    rule_alerts_evaluate(now=closed(rule, 40))
    assert _history(alert) == [("fired", START + HOUR * 30), ("resolved", START + HOUR * 33)]
    # each event once to the endpoint, its body the generic JSON with the alert's numbers
    assert [e.type for e in Event.objects.order_by("pk")] == ["alert.fired", "alert.resolved"]
    deliveries = Delivery.objects.filter(endpoint=endpoint).order_by("pk")
    assert deliveries.count() == 2
    body = deliveries[0].request_body
    assert '"type":"alert.fired"' in body and str(alert.public_id) in body
    assert f"/w/{workspace.slug}/online/{rule.public_id}/alerts/{alert.public_id}/" in body


def test_a_worker_that_read_an_old_state_decides_nothing(rule, user):
    from online.services.alerts import _claimed

    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    _from(alert, 29)
    stale = RuleAlert.objects.get(pk=alert.pk)
    rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 31))
    assert not _claimed(stale, START + HOUR * 29, START + HOUR * 30)
    assert _history(alert) == [("fired", START + HOUR * 30)]


def test_a_new_alert_starts_from_the_last_closed_window(rule, user):
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    assert rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 30)) == []
    alert.refresh_from_db()
    assert alert.evaluated_until == START + HOUR * 30
    # not yet: window 30 closed, but its late items may still be coming
    early = START + HOUR * 31 + readiness(rule) - timedelta(minutes=1)
    assert rule_alert_evaluate(alert_id=alert.pk, now=early) == []
    assert [e.action for e in rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 31))] == [
        "fired"
    ]


def test_a_raw_threshold_fires_when_crossed_and_resolves_below_it(rule, user):
    alert = rule_alert_create(
        rule=rule,
        user=user,
        fields={"metric": "fail_rate", "mode": "threshold", "threshold": 0.2, "cooldown": 0},
    )
    _from(alert, 0)
    events = rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 40))
    assert [(e.action, e.window_start, e.test) for e in events] == [
        ("fired", START + HOUR * 30, "threshold"),
        ("resolved", START + HOUR * 32, ""),
    ]
    assert "threshold 20.0%" in events[0].message and events[0].z is None


def test_a_quiet_rule_raises_nothing(workspace, user):
    rule = code_rule(workspace, user, name="quiet")
    OnlineRule.objects.filter(pk=rule.pk).update(created_at=START)
    for hour in range(48):
        traffic(rule, hour, fails=5 + hour % 3, passes=95 - hour % 3)
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    _from(alert, 0)
    assert rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 48)) == []
    assert AlertEvent.objects.count() == 0


def test_volume_falls_against_its_own_windows(workspace, user):
    rule = code_rule(workspace, user, name="volume")
    OnlineRule.objects.filter(pk=rule.pk).update(created_at=START)
    rule.refresh_from_db()
    for hour in range(30):
        traffic(rule, hour, fails=0, passes=0, eligible=1000 + 20 * (hour % 5))
    traffic(rule, 30, fails=0, passes=0, eligible=200)
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "volume"})
    assert (alert.direction, alert.rule_evaluator) == ("either", None)
    _from(alert, 24)
    [fired] = rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 31))
    assert (fired.value, fired.z < -10) == (200, True)


def test_a_lowered_sampling_rate_weighs_by_traffic(rule, user):
    """Hour 50: 1,000 items at rate 1 with 5 % failing, and 9,000 at 0.1 with 900 judged, 40 %
    failing: the window's rate is 0.1 x 0.05 + 0.9 x 0.4 = 0.365, not the judged items' 0.21."""
    traffic(rule, 50, fails=50, passes=950, rate=1.0)
    traffic(rule, 50, fails=360, passes=540, rate=0.1, eligible=9000)
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    last = alert_history(alert=alert, end=START + HOUR * 51)[-1]
    assert (last.value, last.n) == (pytest.approx(0.365, abs=1e-3), 1900)


def test_a_resumed_rules_alerts_start_at_the_last_closed_window(rule, user):
    from online.services import online_rule_update

    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "volume"})
    _from(alert, 10)
    online_rule_update(rule=rule, fields={"active": False}, evaluators=None)
    assert rule_alerts_evaluate(now=closed(rule, 40)) == 0  # paused: not evaluated
    online_rule_update(rule=rule, fields={"active": True}, evaluators=None)
    alert.refresh_from_db()
    assert alert.evaluated_until is None
