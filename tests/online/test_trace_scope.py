"""Trace rules: a trace is scored once it is ready — quiet for the sweep's lag after its root
arrived, or for the rule's idle time while its root has not — with late children moving its
readiness on and counted in; its root's fields and its tool spans' trajectory are the
evaluator's inputs; a trace is scored once, however late more spans come."""

from datetime import UTC, datetime, timedelta

import pytest

from online.kind import online_run_inline
from online.models import OnlineOutcome, OnlineRule
from online.services import online_rule_create, online_sweep
from tests.support.factories import make_code_version

from .support import llm_span, store

pytestmark = pytest.mark.django_db

T = datetime(2026, 12, 3, 12, tzinfo=UTC)
LAG = timedelta(seconds=10)  # ASSAY_ONLINE_SWEEP_LAG_S
IDLE = timedelta(seconds=180)


@pytest.fixture
def rule(workspace, user):
    version = make_code_version(workspace=workspace, user=user, name="Used search")
    made = online_rule_create(
        workspace=workspace,
        user=user,
        fields={
            "name": "agent runs",
            "scope": "trace",
            "filter": {"field": "kind", "op": "eq", "value": "tool"},
        },
        evaluators=[
            {
                "evaluator_version": version,
                "mapping": {
                    "actual_output": "trace:trajectory",
                    "reference_output": "attribute:expected",
                },
            }
        ],
    )
    OnlineRule.objects.filter(pk=made.pk).update(swept_until=T)
    made.refresh_from_db()
    return made


def _span(workspace, trace_id, span_id, *, parent="", kind="agent", received, **fields):
    span = llm_span(
        workspace,
        output="",
        expected="search",
        at=T - timedelta(seconds=30),
        trace_id=trace_id,
        span_id=span_id,
        parent_span_id=parent,
        kind=kind,
        **fields,
    )
    span.received_at = received
    return span


def _sweep(rule, at):
    run = online_sweep(rule_id=rule.pk, now=at)
    if run is not None:
        online_run_inline(run_id=run.pk)
    return run


def test_a_trace_is_ready_after_its_root_and_the_lag(workspace, rule):
    trace = "a" * 32
    store(
        [
            _span(
                workspace,
                trace,
                "1" * 16,
                kind="tool",
                parent="0" * 16,
                name="search",
                received=T + timedelta(seconds=1),
            ),
            _span(workspace, trace, "0" * 16, received=T + timedelta(seconds=5)),
        ]
    )
    assert _sweep(rule, T + timedelta(seconds=14)) is None  # 9 s after the root
    run = _sweep(rule, T + timedelta(seconds=16))
    assert run.items_total == 1
    outcome = OnlineOutcome.objects.get(rule=rule)
    assert (outcome.trace_id, outcome.span_id, outcome.verdict) == (trace, "", "pass")


def test_without_its_root_a_trace_waits_for_the_idle_time(workspace, rule):
    trace = "b" * 32
    store(
        [
            _span(
                workspace,
                trace,
                "1" * 16,
                kind="tool",
                parent="9" * 16,
                name="search",
                received=T + timedelta(seconds=1),
            )
        ]
    )
    assert _sweep(rule, T + timedelta(seconds=60)) is None
    assert _sweep(rule, T + timedelta(seconds=1) + IDLE - timedelta(seconds=1)) is None
    assert _sweep(rule, T + timedelta(seconds=2) + IDLE).items_total == 1
    assert OnlineOutcome.objects.get(rule=rule).verdict == "pass"  # the orphan stands in


def test_a_late_child_moves_readiness_on_and_is_counted_in(workspace, rule):
    trace = "c" * 32
    root = _span(workspace, trace, "0" * 16, received=T + timedelta(seconds=1))
    store([root])
    # the tool span arrives 6 s after its root: the trace is not ready 10 s after the root
    store(
        [
            _span(
                workspace,
                trace,
                "2" * 16,
                kind="tool",
                parent="0" * 16,
                name="search",
                received=T + timedelta(seconds=7),
            )
        ]
    )
    assert _sweep(rule, T + timedelta(seconds=12)) is None
    assert _sweep(rule, T + timedelta(seconds=18)).items_total == 1
    assert OnlineOutcome.objects.get(rule=rule).verdict == "pass"  # its trajectory holds search
    # a span arriving after the trace was scored does not score it again
    store(
        [
            _span(
                workspace,
                trace,
                "3" * 16,
                kind="tool",
                parent="0" * 16,
                name="other",
                received=T + timedelta(seconds=30),
            )
        ]
    )
    assert _sweep(rule, T + timedelta(seconds=60)) is None
    assert OnlineOutcome.objects.filter(rule=rule).count() == 1


def test_only_traces_with_a_matching_span_are_scored(workspace, rule):
    no_tool = "d" * 32
    with_tool = "e" * 32
    store(
        [
            _span(workspace, no_tool, "0" * 16, received=T + timedelta(seconds=1)),
            _span(workspace, with_tool, "0" * 16, received=T + timedelta(seconds=1)),
            _span(
                workspace,
                with_tool,
                "1" * 16,
                kind="tool",
                parent="0" * 16,
                name="lookup",
                received=T + timedelta(seconds=1),
            ),
        ]
    )
    run = _sweep(rule, T + timedelta(seconds=20))
    assert run.items_total == 1
    outcome = OnlineOutcome.objects.get(rule=rule)
    assert (outcome.trace_id, outcome.verdict) == (with_tool, "fail")  # lookup, not search
    assert sum(rule.strata.values_list("eligible", flat=True)) == 1
