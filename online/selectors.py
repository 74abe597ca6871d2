"""Reads of online evaluation, scoped to a workspace."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta

import numpy as np
from django.db.models import Count, F, Prefetch, Q, QuerySet, Sum
from django.db.models.functions import TruncHour
from django.utils import timezone

from assay.models import Workspace
from assay.selectors import public_or_404
from assay.vocabulary import Verdict
from evaluators.kinds import kind_get
from experiments.models import JudgeCalibration
from experiments.selectors.resolving import evaluator_version_choices
from experiments.stats.online import (
    Calibration,
    Stratum,
    WindowRate,
    rate_change_p_value,
    window_fail_rate,
)
from traces.models import Span

from .models import (
    AlertAction,
    AlertEvent,
    OnlineOutcome,
    OnlineRule,
    RuleAlert,
    RuleEvaluator,
    RuleScope,
    RuleStratum,
)


def online_rules_list(*, workspace: Workspace) -> QuerySet[OnlineRule]:
    """The workspace's rules by name, with their evaluator versions."""
    evaluators = RuleEvaluator.objects.select_related("evaluator_version__evaluator")
    return OnlineRule.objects.filter(workspace=workspace).prefetch_related(
        Prefetch("evaluators", queryset=evaluators)
    )


def rule_window(*, rule_evaluator: RuleEvaluator, start, end, calibration=None, seed=None) -> dict:
    """One evaluator's numbers over [start, end): the fail rate weighed by traffic across the
    window's strata (hour × sampling rate) with its interval, the decided count, unknowns, skips
    by reason, and cost."""
    outcomes = OnlineOutcome.objects.filter(
        rule_evaluator=rule_evaluator, item_time__gte=start, item_time__lt=end
    )
    decided = _decided_by_stratum(outcomes)
    strata = [
        Stratum(volume=eligible, fails=decided[(hour, rate)][0], passes=decided[(hour, rate)][1])
        for hour, rate, eligible in RuleStratum.objects.filter(
            rule_id=rule_evaluator.rule_id, hour__gte=start, hour__lt=end
        ).values_list("hour", "rate", "eligible")
    ]
    skips = Counter(
        dict(outcomes.exclude(skip_reason="").values_list("skip_reason").annotate(n=Count("pk")))
    )
    return {
        "rate": window_fail_rate(strata, calibration=calibration, seed=seed),
        "decided": sum(s.decided for s in strata),
        "unknown": outcomes.filter(verdict=Verdict.UNKNOWN, skip_reason="").count(),
        "skips": skips,
        "cost": outcomes.aggregate(c=Sum("cost"))["c"] or 0.0,
    }


def _decided_by_stratum(outcomes) -> defaultdict:
    """(hour, rate) → [fails, passes] of the decided outcomes."""
    counts: defaultdict = defaultdict(lambda: [0, 0])
    rows = (
        outcomes.filter(verdict__in=(Verdict.FAIL, Verdict.PASS))
        .annotate(hour=TruncHour("item_time"))
        .values_list("hour", "rate", "verdict")
        .annotate(n=Count("pk"))
    )
    for hour, rate, verdict, n in rows:
        counts[(hour, rate)][0 if verdict == Verdict.FAIL else 1] += n
    return counts


WINDOWS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}
MAX_WINDOWS = 48
LATENCY_SAMPLE = 20_000  # scored items a window reads for its latency percentiles
ALPHA = 0.05


def rule_calibration(*, rule_evaluator: RuleEvaluator) -> Calibration | None:
    """The newest usable calibration of the evaluator version against human labels."""
    found = JudgeCalibration.objects.filter(
        evaluator_version_id=rule_evaluator.evaluator_version_id
    )
    for calibration in found.order_by("-created_at"):
        if calibration.usable:
            counts = calibration.confusion
            return Calibration(counts["tp"], counts["fn"], counts["tn"], counts["fp"])
    return None


def rule_monitor(*, rule: OnlineRule, window: str, count: int, now, seed=0) -> list[dict]:
    """Per evaluator of the rule, its last `count` windows (oldest first): the raw fail rate
    with its interval, the calibrated one where the version has a calibration, volume, sampled
    share, unknowns, skips, cost, latencies and the change against the window before. The
    intervals' draws are seeded, so a page shows the same bounds on every reload."""
    size = WINDOWS[window]
    end = _window_end(now, window)
    bounds = [(end - size * (i + 1), end - size * i) for i in reversed(range(count + 1))]
    fired = rule_fired_windows(rule=rule, start=bounds[0][0], end=end)
    return [
        {
            "evaluator": evaluator,
            "windows": _marked(_windows(evaluator, bounds, seed), evaluator, fired),
        }
        for evaluator in rule.evaluators.select_related("evaluator_version__evaluator")
    ]


def _marked(rows: list[dict], evaluator: RuleEvaluator, fired: list[tuple]) -> list[dict]:
    """Each window with the number of alerts (the evaluator's, and the rule's volume alerts)
    that fired on a window starting in it."""
    mine = [start for owner, start, _end in fired if owner in (None, evaluator.pk)]
    for row in rows:
        row["alerts_fired"] = sum(row["start"] <= start < row["end"] for start in mine)
    return rows


def _windows(evaluator: RuleEvaluator, bounds, seed) -> list[dict]:
    calibration = rule_calibration(rule_evaluator=evaluator)
    rows = [_window_row(evaluator, start, end, calibration, seed) for start, end in bounds]
    for before, row in zip(rows, rows[1:], strict=False):
        row["change_p"] = _change(before["raw"], row["raw"])
        row["changed"] = row["change_p"] is not None and row["change_p"] < ALPHA
    return rows[1:]  # the first window only served as the second's baseline


def _window_row(evaluator, start, end, calibration, seed) -> dict:
    numbers = rule_window(rule_evaluator=evaluator, start=start, end=end, seed=seed)
    strata = RuleStratum.objects.filter(rule_id=evaluator.rule_id, hour__gte=start, hour__lt=end)
    volume = strata.aggregate(eligible=Sum("eligible"), sampled=Sum("sampled"))
    calibrated = None
    if calibration is not None:
        calibrated = rule_window(
            rule_evaluator=evaluator, start=start, end=end, calibration=calibration, seed=seed
        )["rate"]
    return {
        "start": start,
        "end": end,
        "raw": numbers["rate"],
        "calibrated": calibrated,
        "decided": numbers["decided"],
        "unknown": numbers["unknown"],
        "skips": dict(numbers["skips"]),
        "cost": numbers["cost"],
        "eligible": volume["eligible"] or 0,
        "sampled": volume["sampled"] or 0,
        **_latencies(evaluator, start, end),
    }


def _latencies(evaluator, start, end) -> dict:
    """Judge latency and span → score delay, p50 and p95 (ms), over the window's scored items."""
    scored = OnlineOutcome.objects.filter(
        rule_evaluator=evaluator, item_time__gte=start, item_time__lt=end, skip_reason=""
    ).values_list("latency_ms", "item_time", "created_at")[:LATENCY_SAMPLE]
    rows = list(scored)
    if not rows:
        return {"latency_ms": None, "delay_ms": None}
    latency = np.array([r[0] for r in rows])
    delay = np.array([(r[2] - r[1]).total_seconds() * 1000 for r in rows])
    return {
        "latency_ms": [float(np.percentile(latency, q)) for q in (50, 95)],
        "delay_ms": [float(np.percentile(delay, q)) for q in (50, 95)],
    }


def _change(before: WindowRate | None, after: WindowRate | None) -> float | None:
    if before is None or after is None:
        return None
    return rate_change_p_value(before, after, 0.95)


def _window_end(now, window: str):
    """The end of the window that holds `now` (hours, UTC days, ISO weeks from Monday)."""
    hour = now.replace(minute=0, second=0, microsecond=0)
    if window == "hour":
        return hour + timedelta(hours=1)
    day = hour.replace(hour=0) + timedelta(days=1)
    return day if window == "day" else day + timedelta(days=(7 - day.weekday()) % 7)


def rule_outcomes(*, rule: OnlineRule, filters: dict) -> QuerySet[OnlineOutcome]:
    """The rule's outcomes, newest first, by evaluator, verdict, skip reason or trace."""
    outcomes = OnlineOutcome.objects.filter(rule=rule).select_related(
        "rule_evaluator__evaluator_version__evaluator"
    )
    for name in ("verdict", "skip_reason", "trace_id", "status"):
        if filters.get(name) is not None:
            outcomes = outcomes.filter(**{name: filters[name]})
    if filters.get("evaluator_version"):
        outcomes = outcomes.filter(
            rule_evaluator__evaluator_version__public_id=filters["evaluator_version"]
        )
    return outcomes.order_by("-item_time", "-pk")


def online_rule_get(*, workspace: Workspace, public_id) -> OnlineRule:
    """One rule of the workspace by public id; 404 for anything else."""
    return public_or_404(online_rules_list(workspace=workspace), public_id, "online rule")


def rule_version_choices(*, workspace: Workspace) -> list:
    """Evaluator versions a rule may run: every live evaluator's, pairwise judges left out."""
    versions = evaluator_version_choices(workspace=workspace)
    return [v for v in versions if not kind_get(v.kind).pairwise]


def recent_attribute_keys(*, workspace: Workspace, limit: int = 30) -> list[str]:
    """The attribute keys most seen on the workspace's latest 500 spans (the mapping offers
    them as sources)."""
    recent = Span.objects.filter(workspace=workspace).order_by("-start_time")[:500]
    seen = Counter(
        key
        for attributes in recent.values_list("attributes", flat=True)
        for key in attributes or {}
    )
    return sorted(key for key, _n in seen.most_common(limit))


def rule_latest(*, rule: OnlineRule) -> dict:
    """What the rules list shows of a rule: its outcomes in the last 24 hours by verdict."""
    since = timezone.now() - timedelta(days=1)
    counts = (
        rule.outcomes.filter(created_at__gte=since).values_list("verdict").annotate(n=Count("pk"))
    )
    return dict(counts)


def trace_outcomes(*, workspace: Workspace, trace_id: str) -> QuerySet[OnlineOutcome]:
    """Every rule's outcomes for one trace of the workspace."""
    return (
        OnlineOutcome.objects.filter(rule__workspace=workspace, trace_id=trace_id)
        .select_related("rule", "rule_evaluator__evaluator_version__evaluator")
        .order_by("-created_at")
    )


def session_outcomes(*, workspace: Workspace, session_id: str) -> QuerySet[OnlineOutcome]:
    """Every session rule's outcomes for one session of the workspace, by rule."""
    return (
        OnlineOutcome.objects.filter(
            rule__workspace=workspace, rule__scope=RuleScope.SESSION, session_id=session_id
        )
        .select_related("rule", "rule_evaluator__evaluator_version__evaluator")
        .order_by("rule__name", "rule_evaluator__position", "-created_at")
    )


def span_prefill(*, workspace: Workspace, trace_id: str, span_id: str) -> dict:
    """What a rule started from a span copies of it (kind, name, model, environment); {} for
    a span the workspace does not have."""
    span = Span.objects.filter(workspace=workspace, trace_id=trace_id, span_id=span_id).first()
    if span is None:
        return {}
    fields = {"kind": span.kind, "name": span.name, "model": span.model}
    return {**{k: v for k, v in fields.items() if v}, "environment": span.environment}


def scored_trace_ids(*, workspace: Workspace, verdict: str | None, rule=None) -> QuerySet:
    """The traces the workspace's rules scored (with `verdict`, by `rule` when given), as the
    traces list's score filter asks (`traces.reading.scores`)."""
    outcomes = OnlineOutcome.objects.filter(rule__workspace=workspace, skip_reason="")
    if verdict is not None:
        outcomes = outcomes.filter(verdict=verdict)
    if rule is not None:
        outcomes = outcomes.filter(rule__public_id=rule)
    return outcomes.values("trace_id")


def span_outcomes(*, workspace: Workspace, trace_ids: list[str]) -> dict:
    """The workspace's rules' outcomes for these traces by (trace id, span id), as the traces
    API shows them on spans (`traces.reading.scores`): one query for any number of traces."""
    rows = (
        OnlineOutcome.objects.filter(rule__workspace=workspace, trace_id__in=trace_ids)
        .order_by("rule__name", "rule_evaluator__position", "pk")
        .values_list("trace_id", "span_id", *OUTCOME_ON_SPAN.values())
    )
    found: dict = defaultdict(list)
    for trace_id, span_id, *values in rows:
        found[(trace_id, span_id)].append(dict(zip(OUTCOME_ON_SPAN, values, strict=True)))
    return found


# what a span's outcome shows in the traces API → where it is read from
OUTCOME_ON_SPAN = {
    "rule_id": "rule__public_id",
    "rule_name": "rule__name",
    "evaluator_version": "rule_evaluator__evaluator_version__public_id",
    "evaluator_name": "rule_evaluator__evaluator_version__evaluator__name",
    "version": "rule_evaluator__evaluator_version__version",
    "status": "status",
    "verdict": "verdict",
    "score": "score",
    "skip_reason": "skip_reason",
}


# ----------------------------------------------------------------------------- alerts


def rule_hours(*, rule: OnlineRule, rule_evaluator: RuleEvaluator | None, start, end) -> dict:
    """What an alert's windows are made of, per stratum (hour, sampling rate) over [start,
    end): the eligible items (`RuleStratum`) and, for an evaluator, its decided fails and
    passes, unknowns among scored items, scores' count, sum and sum of squares, and cost.
    Two queries however long the range."""
    rows: defaultdict = defaultdict(lambda: dict.fromkeys(HOUR_FIELDS, 0))
    strata = RuleStratum.objects.filter(rule=rule, hour__gte=start, hour__lt=end)
    for hour, rate, eligible in strata.values_list("hour", "rate", "eligible"):
        rows[(hour, rate)]["eligible"] += eligible
    if rule_evaluator is not None:
        for row in _outcome_hours(rule_evaluator, start, end):
            key = (row.pop("hour"), row.pop("rate"))
            rows[key].update({k: v or 0 for k, v in row.items()})
    return dict(rows)


HOUR_FIELDS = (
    "eligible",
    "fails",
    "passes",
    "unknown",
    "scored",
    "scores",
    "total",
    "squares",
    "cost",
)


def _outcome_hours(rule_evaluator: RuleEvaluator, start, end):
    scored = Q(skip_reason="")
    return (
        OnlineOutcome.objects.filter(
            rule_evaluator=rule_evaluator, item_time__gte=start, item_time__lt=end
        )
        .annotate(hour=TruncHour("item_time"))
        .values("hour", "rate")
        .annotate(
            fails=Count("pk", filter=Q(verdict=Verdict.FAIL)),
            passes=Count("pk", filter=Q(verdict=Verdict.PASS)),
            unknown=Count("pk", filter=scored & Q(verdict=Verdict.UNKNOWN)),
            scored=Count("pk", filter=scored),
            scores=Count("score", filter=scored),
            total=Sum("score", filter=scored),
            squares=Sum(F("score") * F("score"), filter=scored),
            cost=Sum("cost"),
        )
        .order_by()
    )


def rule_alerts(*, rule: OnlineRule) -> QuerySet[RuleAlert]:
    """A rule's alerts, oldest first, with their evaluator versions."""
    return rule.alerts.select_related("rule_evaluator__evaluator_version__evaluator")


def rule_alert_get(*, rule: OnlineRule, public_id) -> RuleAlert:
    """One alert of the rule by public id; 404 for anything else."""
    return public_or_404(rule_alerts(rule=rule), public_id, "alert")


def alert_events(*, alert: RuleAlert) -> QuerySet[AlertEvent]:
    """An alert's history, newest window first."""
    return alert.events.all()


def rule_fired_windows(*, rule: OnlineRule, start, end) -> list[tuple]:
    """(evaluator id or None, window start, window end) of the rule's alerts that fired in
    [start, end): the monitor marks the windows that hold them."""
    fired = AlertEvent.objects.filter(
        alert__rule=rule, action=AlertAction.FIRED, window_start__gte=start, window_start__lt=end
    )
    return list(fired.values_list("alert__rule_evaluator_id", "window_start", "window_end"))
