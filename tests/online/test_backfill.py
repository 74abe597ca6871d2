"""Backfill: a new rule over a past window, estimated first, then run; spans the live sweep
covers are never taken twice and windows never overlap; bad windows are refused by name."""

from datetime import timedelta

import pytest
from django.utils import timezone

from online.kind import online_run_inline
from online.models import OnlineOutcome, OnlineRule, RuleStratum
from online.sampling import in_sample

from .support import code_rule, llm_span, store

pytestmark = pytest.mark.django_db


@pytest.fixture
def history(workspace, user):
    """60 spans over the last three hours, then a rule at 50 % made now."""
    now = timezone.now()
    spans = store(
        [
            llm_span(workspace, output="a", expected="a", at=now - timedelta(minutes=3 * i + 2))
            for i in range(60)
        ]
    )
    rule = code_rule(workspace, user, sampling_rate=0.5)
    return rule, spans, now


def _url(rule) -> str:
    return f"/api/v1/online-rules/{rule.public_id}/backfill/"


def test_the_estimate_then_the_run(api, history):
    rule, spans, now = history
    window = {"since": (now - timedelta(hours=4)).isoformat(), "until": rule.created_at.isoformat()}
    estimate = api.post(_url(rule), window, format="json")
    assert estimate.status_code == 200, estimate.content
    sampled = sum(in_sample(s.trace_id, 0.5) for s in spans)
    assert estimate.json() == {
        "spans": 60,
        "sampled": sampled,
        "calls": sampled,
        "cost": 0.0,
        "run": None,
    }
    assert not OnlineOutcome.objects.exists() and not RuleStratum.objects.exists()
    started = api.post(_url(rule), {**window, "start": True}, format="json")
    assert started.status_code == 201
    run = online_run_inline(run_id=rule.runs.get(public_id=started.json()["run"]).pk)
    assert run.source == "backfill" and run.results_done == sampled
    assert OnlineOutcome.objects.filter(rule=rule).count() == sampled
    assert sum(RuleStratum.objects.filter(rule=rule).values_list("eligible", flat=True)) == 60
    # the same window again overlaps what the first one covered
    again = api.post(_url(rule), {**window, "start": True}, format="json")
    assert again.status_code == 400 and "coverage begins" in str(again.json())
    assert OnlineOutcome.objects.filter(rule=rule).count() == sampled


def test_an_earlier_window_joins_on(api, history):
    rule, _spans, now = history
    middle = now - timedelta(minutes=90)
    late = {"since": middle.isoformat(), "until": rule.created_at.isoformat(), "start": True}
    assert api.post(_url(rule), late, format="json").status_code == 201
    early = {"since": (now - timedelta(hours=4)).isoformat(), "until": middle.isoformat()}
    answer = api.post(_url(rule), early, format="json")
    assert answer.status_code == 200
    assert OnlineRule.objects.get().backfilled_from == middle


def test_bad_windows_are_refused_by_name(api, history):
    rule, _spans, now = history
    cases = [
        ({"since": now.isoformat(), "until": (now - timedelta(hours=1)).isoformat()}, "since"),
        (
            {
                "since": (now - timedelta(hours=1)).isoformat(),
                "until": (now + timedelta(hours=1)).isoformat(),
            },
            "until",
        ),
        (
            {
                "since": (now - timedelta(days=400)).isoformat(),
                "until": (now - timedelta(days=1)).isoformat(),
            },
            "since",
        ),
        ({"since": "yesterday", "until": now.isoformat()}, "since"),
    ]
    for body, field in cases:
        answer = api.post(_url(rule), body, format="json")
        assert answer.status_code == 400, body
        assert field in answer.json()["error"]["details"], answer.json()
    assert not rule.runs.exists()


def test_live_spans_are_not_backfilled(api, workspace, history):
    rule, _spans, now = history
    # a span that started before the rule but was stored after it: the live sweep's
    late = llm_span(workspace, output="a", expected="a", at=now - timedelta(minutes=1))
    late.received_at = rule.created_at + timedelta(seconds=1)
    store([late])
    window = {"since": (now - timedelta(hours=4)).isoformat(), "until": rule.created_at.isoformat()}
    assert api.post(_url(rule), window, format="json").json()["spans"] == 60


def test_outsiders_get_404(outsider_api, history):
    rule, _spans, now = history
    window = {"since": (now - timedelta(hours=4)).isoformat(), "until": now.isoformat()}
    assert outsider_api.post(_url(rule), window, format="json").status_code == 404
