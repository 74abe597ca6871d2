"""An online chunk's outcomes written by `experiments.scoring.writes.instances_upsert` (COPY and
one upsert on PostgreSQL, bulk_create elsewhere): one row per (rule evaluator, trace, span),
its scoring updated in place, its creation time kept, nothing left by a rolled-back write."""

import pytest
from django.db import transaction
from django.utils import timezone

from online import kind
from online.models import OnlineOutcome
from tests.online.support import code_rule

pytestmark = pytest.mark.django_db

TRACES = ["a" * 32, "b" * 32, "c" * 32]


def outcomes(rule, status: str, verdict: str, request) -> list[OnlineOutcome]:
    evaluator = rule.evaluators.get()
    return [
        OnlineOutcome(
            rule=rule,
            rule_evaluator=evaluator,
            trace_id=trace_id,
            span_id="1" * 16,
            item_time=timezone.now(),
            rate=0.25,
            status=status,
            verdict=verdict,
            score=1.0 if verdict == "pass" else None,
            rendered_request=request,
        )
        for trace_id in TRACES
    ]


def stored() -> list[tuple]:
    rows = OnlineOutcome.objects.order_by("trace_id")
    return list(rows.values_list("status", "verdict", "score", "rendered_request", "rate"))


def test_outcomes_written_twice_leave_one_row_each_with_the_last_scoring(workspace, user):
    rule = code_rule(workspace, user)
    with transaction.atomic():
        kind._upsert(outcomes(rule, "error", "unknown", None))
        created = dict(OnlineOutcome.objects.values_list("trace_id", "created_at"))
        kind._upsert(outcomes(rule, "success", "pass", {"messages": [{"role": "user"}]}))
    assert stored() == [("success", "pass", 1.0, {"messages": [{"role": "user"}]}, 0.25)] * 3
    assert dict(OnlineOutcome.objects.values_list("trace_id", "created_at")) == created
    assert all(created.values())


def test_a_rolled_back_write_leaves_nothing_and_the_next_one_lands(workspace, user):
    rule = code_rule(workspace, user)
    with pytest.raises(RuntimeError), transaction.atomic():
        kind._upsert(outcomes(rule, "success", "fail", None))
        raise RuntimeError("the lease was lost")
    assert not OnlineOutcome.objects.exists()
    kind._upsert(outcomes(rule, "success", "fail", None))  # outside a transaction: one of its own
    assert [row[:2] for row in stored()] == [("success", "fail")] * 3
