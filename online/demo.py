"""The demo's online rule: the demo agent's traces scored by "No failed tool calls" (one of the
demo evaluators) on its trajectory, so a newcomer finds an online monitor with a failing trace
beside the traces of `make run`.

`make run` sends the demo's spans after the server starts, so the live sweep scores them
(about half a minute: readiness, then the next sweep); spans already stored (`load_demo`
alone) are backfilled by a run the worker takes when one runs.
"""

from __future__ import annotations

from datetime import timedelta

from assay.demo import demo_existing
from evaluators.models import EvaluatorVersion

from .models import OnlineRule, RuleScope
from .services import online_backfill, online_rule_create

RULE = "Demo agent: no failed tool calls"
TEMPLATE = "no-failed-calls"
ENVIRONMENT = "demo"  # the demo agent's deployment.environment.name


def demo_load(*, workspace, user) -> None:
    """Create the demo rule once (with the demo evaluator it needs), and backfill the demo's
    spans already stored."""
    version = (
        EvaluatorVersion.objects.filter(
            evaluator__workspace=workspace, evaluator__template__slug=TEMPLATE
        )
        .order_by("-created_at")
        .first()
    )
    if version is None or demo_existing(OnlineRule, workspace, RULE):
        return
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
