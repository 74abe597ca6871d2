"""Backfill: a new rule scored over a past window of spans, its cost estimated before it
starts. It covers spans stored before the rule began sweeping (the live sweep took the rest)
and windows that do not overlap one backfilled before, so a stratum is never counted twice.
The items are sampled at the rule's rate (no daily budget: a backfill is asked for once, with
its estimate) and go to an online run of source "backfill"."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Avg, Min
from django.utils.translation import gettext as _

from experiments.models import Result
from traces.models import TraceSummary

from ..models import OnlineOutcome, OnlineRule, OnlineRun, RuleEvaluator, RuleScope, RunSource
from .sweep import (
    SweepPlan,
    eligible_spans,
    kind_queue,
    plan_add,
    run_create,
    sessions_eligible,
    sessions_info,
    strata_add,
)

MAX_BACKFILL_ITEMS = 50_000


@dataclass(frozen=True)
class BackfillEstimate:
    """What a backfill would do: spans in the window, how many the rate samples, evaluator
    calls (items × versions) and their estimated cost (None: no price known for a judge)."""

    spans: int
    sampled: int
    calls: int
    cost: float | None


def online_backfill(
    *, rule: OnlineRule, since: datetime, until: datetime, start: bool
) -> tuple[BackfillEstimate, OnlineRun | None]:
    """The estimate for [since, until) (span start times), and, with `start`, the launched
    run; refused when the window is not before what the rule already covers, reaches past
    retention, or samples more than MAX_BACKFILL_ITEMS."""
    with transaction.atomic():
        locked = OnlineRule.objects.select_for_update().get(pk=rule.pk)
        _check_window(locked, since, until)
        plan = _plan(locked, since, until)
        estimate = _estimate(locked, plan)
        if len(plan.items) > MAX_BACKFILL_ITEMS:
            raise ValidationError(
                {
                    "until": [
                        _("This window samples %(n)s items; at most %(max)s a backfill.")
                        % {"n": len(plan.items), "max": MAX_BACKFILL_ITEMS}
                    ]
                }
            )
        if not start or not plan.items:
            return estimate, None
        strata_add(locked, plan, locked.sampling_rate)
        run = run_create(locked, until, plan.items, source=RunSource.BACKFILL, since=since)
        locked.backfilled_from = since
        locked.save(update_fields=["backfilled_from"])
    return estimate, run


def _covered_from(rule: OnlineRule) -> datetime:
    """Where what the rule already covers begins: its last backfill, else its first sweep."""
    return rule.backfilled_from or rule.created_at


def _check_window(rule: OnlineRule, since: datetime, until: datetime) -> None:
    oldest = rule.created_at - timedelta(days=settings.ASSAY_TRACE_RETENTION_DAYS)
    if since >= until:
        raise ValidationError({"since": [_("The window's start must be before its end.")]})
    if until > _covered_from(rule):
        raise ValidationError(
            {
                "until": [
                    _("A backfill ends where the rule's coverage begins (%(at)s) or earlier.")
                    % {"at": _covered_from(rule).isoformat()}
                ]
            }
        )
    if since < oldest:
        raise ValidationError({"since": [_("Spans older than the retention are gone.")]})


def _plan(rule: OnlineRule, since: datetime, until: datetime) -> SweepPlan:
    """Spans of the window stored before the rule swept (by start time), sampled at its rate:
    each span for a span rule, each trace with such a span (counted at its first) for a trace
    rule, each session that began in the window for a session rule (`_plan_sessions`)."""
    plan = SweepPlan()
    if rule.scope == RuleScope.SESSION:
        return _plan_sessions(rule, since, until, plan)
    spans = eligible_spans(rule=rule, since=None, until=rule.created_at).filter(
        start_time__gte=since, start_time__lt=until
    )
    if rule.scope == RuleScope.TRACE:
        rows = spans.order_by().values("trace_id").annotate(first=Min("start_time"))
        items = sorted((row["first"], row["trace_id"], "") for row in rows)
    else:
        items = spans.order_by("start_time").values_list("start_time", "trace_id", "span_id")
    for start, trace_id, span_id in items:
        plan_add(plan, trace_id, span_id, start, rule.sampling_rate, None)
    return plan


def _plan_sessions(rule: OnlineRule, since: datetime, until: datetime, plan) -> SweepPlan:
    """The sessions whose first trace started in the window and that were first ready before
    the rule began sweeping (the live sweep takes the others), eligible as live ones are."""
    summaries = TraceSummary.objects.filter(
        workspace_id=rule.workspace_id, start_time__gte=since, start_time__lt=until
    ).exclude(session_id="")
    session_ids = sorted(set(summaries.values_list("session_id", flat=True)))
    infos = {
        sid: info
        for sid, info in sessions_info(rule=rule, session_ids=session_ids).items()
        if since <= info.first_start < until
        and info.first_ready is not None
        and info.first_ready <= rule.created_at
    }
    for sid in sessions_eligible(rule=rule, sessions=infos, until=rule.created_at):
        info = infos[sid]
        plan_add(plan, info.trace_ids[0], "", info.first_start, rule.sampling_rate, None, sid)
    return plan


def _estimate(rule: OnlineRule, plan: SweepPlan) -> BackfillEstimate:
    evaluators = list(rule.evaluators.select_related("evaluator_version"))
    costs = [_cost_per_call(e) for e in evaluators]
    known = None if any(c is None for c in costs) else sum(costs) * len(plan.items)
    return BackfillEstimate(
        spans=sum(plan.eligible.values()),
        sampled=len(plan.items),
        calls=len(plan.items) * len(evaluators),
        cost=known,
    )


def _cost_per_call(evaluator: RuleEvaluator) -> float | None:
    """A version's mean cost a call so far (online, else in experiments); code costs nothing."""
    version = evaluator.evaluator_version
    if kind_queue(version.kind) == "code":
        return 0.0
    online = OnlineOutcome.objects.filter(
        rule_evaluator__evaluator_version=version, cost__isnull=False
    ).aggregate(c=Avg("cost"))["c"]
    if online is not None:
        return online
    return Result.objects.filter(binding__evaluator_version=version, cost__isnull=False).aggregate(
        c=Avg("cost")
    )["c"]
