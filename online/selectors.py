"""Reads of online evaluation, scoped to a workspace."""

from __future__ import annotations

from collections import Counter, defaultdict

from django.db.models import Count, Prefetch, QuerySet, Sum
from django.db.models.functions import TruncHour

from assay.models import Workspace
from assay.vocabulary import Verdict
from experiments.stats.online import Stratum, window_fail_rate

from .models import OnlineOutcome, OnlineRule, RuleEvaluator, RuleStratum


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
