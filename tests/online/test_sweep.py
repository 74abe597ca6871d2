"""The sweep and the online kind of run: eligible spans counted by hour and rate, cohort
samples, experiment traffic and other environments left out, outcomes written once with their
skip reasons, the budget lowering the rate by halving and the window's rate weighing its
strata by traffic."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from experiments.runs.bases import RunStatus
from online.kind import online_run_inline
from online.models import OnlineOutcome, OnlineRule, RuleStratum, SkipReason
from online.sampling import in_sample
from online.selectors import rule_window
from online.services import online_sweep, rate_in_force

from .support import code_rule, llm_span, store

pytestmark = pytest.mark.django_db

LATER = timedelta(minutes=1)  # sweeping a minute after the spans: past the sweep's lag


def _sweep(rule, now, **options):
    run = online_sweep(rule_id=rule.pk, now=now, **options)
    return None if run is None else online_run_inline(run_id=run.pk)


def test_a_rule_scores_its_spans_once_and_leaves_the_rest_out(workspace, user):
    rule = code_rule(workspace, user)
    now = timezone.now()
    spans = [llm_span(workspace, output="Paris is the capital", expected="Paris") for _ in range(6)]
    spans += [llm_span(workspace, output="Lyon", expected="Paris") for _ in range(3)]
    spans += [llm_span(workspace, output="", expected="Paris")]  # nothing to score
    left_out = [
        llm_span(workspace, output="x", expected="x", kind="tool"),  # the filter
        llm_span(workspace, output="x", expected="x", environment="staging"),
        llm_span(workspace, output="x", expected="x", attributes={"assay.experiment": "e1"}),
    ]
    store(spans + left_out)
    run = _sweep(rule, now + LATER)
    assert run.status == RunStatus.COMPLETED and run.results_done == 10
    outcomes = OnlineOutcome.objects.filter(rule=rule)
    verdicts = sorted(outcomes.values_list("verdict", "skip_reason"))
    assert verdicts == [("fail", "")] * 3 + [("pass", "")] * 6 + [("unknown", SkipReason.MAPPING)]
    assert {o.trace_id for o in outcomes} == {s.trace_id for s in spans}
    assert sum(RuleStratum.objects.filter(rule=rule).values_list("eligible", flat=True)) == 10
    # swept again: nothing new, nothing written twice
    assert online_sweep(rule_id=rule.pk, now=now + 2 * LATER) is None
    assert outcomes.count() == 10


def test_spans_from_before_the_rule_are_not_swept(workspace, user):
    store([llm_span(workspace, output="a", expected="a", at=timezone.now() - timedelta(hours=1))])
    rule = code_rule(workspace, user)
    assert online_sweep(rule_id=rule.pk, now=timezone.now() + LATER) is None


def test_a_paused_rule_sweeps_nothing(workspace, user):
    rule = code_rule(workspace, user, active=False)
    store([llm_span(workspace, output="a", expected="a")])
    assert online_sweep(rule_id=rule.pk, now=timezone.now() + LATER) is None


def test_two_rules_at_one_rate_score_the_same_traces(workspace, user):
    first = code_rule(workspace, user, name="one", sampling_rate=0.3)
    second = code_rule(workspace, user, name="two", sampling_rate=0.3)
    spans = store([llm_span(workspace, output="a", expected="a") for _ in range(200)])
    now = timezone.now() + LATER
    for rule in (first, second):
        _sweep(rule, now)
    scored = [
        set(OnlineOutcome.objects.filter(rule=r).values_list("trace_id")) for r in (first, second)
    ]
    assert scored[0] == scored[1]
    expected = {(s.trace_id,) for s in spans if in_sample(s.trace_id, 0.3)}
    assert scored[0] == expected and 0 < len(expected) < 200
    stratum = RuleStratum.objects.get(rule=first)
    assert (stratum.eligible, stratum.sampled, stratum.rate) == (200, len(expected), 0.3)


def test_the_item_budget_halves_the_rate_and_records_what_it_could_not_score(workspace, user):
    day = datetime(2026, 12, 3, tzinfo=UTC)
    rule = code_rule(workspace, user, daily_item_budget=50)
    OnlineRule.objects.filter(pk=rule.pk).update(swept_until=day)
    morning = [
        llm_span(workspace, output="a", expected="a", at=day + timedelta(hours=5))
        for _ in range(40)
    ]
    store(morning)
    _sweep(rule, day + timedelta(hours=6))
    rule.refresh_from_db()
    assert rule.rate_in_force == 1.0  # before an hour of traffic is known, the hard cap only
    # 40 eligible by noon, so 40 more expected by midnight, 10 left: 1 → 0.5 → 0.25 (10 ≤ 10)
    noon = day + timedelta(hours=12)
    assert rate_in_force(rule=rule, now=noon) == 0.25
    later = [
        llm_span(workspace, output="b", expected="a", at=day + timedelta(hours=7))
        for _ in range(800)
    ]
    store(later)
    _sweep(rule, noon)
    rule.refresh_from_db()
    assert rule.rate_in_force == 0.25 and rule.rate_day == noon.date()
    strata = {s.rate: s for s in RuleStratum.objects.filter(rule=rule)}
    assert set(strata) == {1.0, 0.25}
    assert strata[0.25].eligible == 800
    sampled = sum(in_sample(s.trace_id, 0.25) for s in later)
    assert strata[0.25].sampled == min(sampled, 10)
    assert strata[0.25].over_budget == max(sampled - 10, 0)
    over = OnlineOutcome.objects.filter(rule=rule, skip_reason=SkipReason.OVER_BUDGET).count()
    assert over == strata[0.25].over_budget
    # the window: 40 passes of 40 at rate 1 in hour 5, fails at 1/4 in hour 7 — weighed by
    # traffic, the fail rate is 800 / 840, whatever few of hour 7 were judged
    window = rule_window(
        rule_evaluator=rule.evaluators.get(), start=day, end=day + timedelta(days=1)
    )
    assert window["rate"].rate == pytest.approx(800 / 840)
    assert window["skips"][SkipReason.OVER_BUDGET] == over
    assert window["decided"] == 40 + strata[0.25].sampled


def test_a_spent_budget_stops_sampling_for_the_day(workspace, user):
    day = datetime(2026, 12, 3, tzinfo=UTC)
    rule = code_rule(workspace, user, daily_item_budget=5)
    OnlineRule.objects.filter(pk=rule.pk).update(swept_until=day)
    store(
        [
            llm_span(workspace, output="a", expected="a", at=day + timedelta(hours=1))
            for _ in range(30)
        ]
    )
    _sweep(rule, day + timedelta(hours=2))
    assert OnlineOutcome.objects.filter(rule=rule, skip_reason="").count() == 5
    rule.refresh_from_db()
    assert rate_in_force(rule=rule, now=day + timedelta(hours=3)) == 0.0
    # the next day starts at the rule's own rate again
    assert rate_in_force(rule=rule, now=day + timedelta(days=1, hours=1)) == 1.0
