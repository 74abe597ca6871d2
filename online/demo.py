"""The demo's online rule: the demo agent's traces scored by "No failed tool calls" (one of the
demo evaluators) on its trajectory, so a newcomer finds an online monitor with a failing trace
beside the traces of `make run`.

`make run` sends the demo's spans after the server starts, so the live sweep scores them
(about half a minute: readiness, then the next sweep); spans already stored (`load_demo`
alone) are backfilled by a run the worker takes when one runs.

The rule has an alert on its fail rate with one fired and one resolved event, so a newcomer
sees an alert's history and the monitor's badge. The events are staged: the demo's three
traces are far too few for the alert to decide anything, and it goes on live from the hour
the demo was loaded.
"""

from __future__ import annotations

from datetime import timedelta

from assay.demo import demo_existing
from evaluators.models import EvaluatorVersion

from .models import AlertAction, AlertEvent, OnlineRule, RuleScope
from .services import online_backfill, online_rule_create, rule_alert_create
from .services.alerts import alert_message, window_floor

RULE = "Demo agent: no failed tool calls"
TEMPLATE = "no-failed-calls"
ENVIRONMENT = "demo"  # the demo agent's deployment.environment.name


def demo_load(*, workspace, user) -> None:
    """Create the demo rule once (with the demo evaluator it needs), backfill the demo's
    spans already stored, and give the rule its alert once."""
    rule = demo_existing(OnlineRule, workspace, RULE) or _rule_new(workspace, user)
    if rule is not None and not rule.alerts.exists():
        _alert_new(rule, user)


def _rule_new(workspace, user) -> OnlineRule | None:
    version = (
        EvaluatorVersion.objects.filter(
            evaluator__workspace=workspace, evaluator__template__slug=TEMPLATE
        )
        .order_by("-created_at")
        .first()
    )
    if version is None:
        return None
    rule = online_rule_create(
        workspace=workspace,
        user=user,
        fields={
            "name": RULE,
            "scope": RuleScope.TRACE,
            "environment": ENVIRONMENT,
            "filter": {"field": "kind", "op": "eq", "value": "tool"},
            "sampling_rate": 1.0,
        },
        evaluators=[{"evaluator_version": version, "mapping": {"trajectory": "trace:trajectory"}}],
    )
    since = rule.created_at - timedelta(hours=2)
    online_backfill(rule=rule, since=since, until=rule.created_at, start=True)
    return rule


# the staged history: (hours before the load, action, fail rate, baseline, z, test)
DEMO_EVENTS = (
    (5, AlertAction.FIRED, 0.42, 0.06, 5.12, "window"),
    (2, AlertAction.RESOLVED, 0.07, 0.08, -0.21, ""),
)


def _alert_new(rule: OnlineRule, user) -> None:
    """The fail-rate alert with the defaults, a fired and a resolved event behind it."""
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    now = window_floor(rule.created_at, alert.window)
    for hours, action, value, baseline, z, test in DEMO_EVENTS:
        start = now - timedelta(hours=hours)
        event = AlertEvent(
            alert=alert,
            action=action,
            window_start=start,
            window_end=start + timedelta(hours=1),
            value=value,
            baseline=baseline,
            z=z,
            test=test,
            n=48,
        )
        event.message = alert_message(alert=alert, event=event)
        event.save()
    alert.evaluated_until, alert.quiet_for = now, 2
    alert.save(update_fields=["evaluated_until", "quiet_for"])
