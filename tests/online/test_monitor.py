"""A rule's monitor and results through the API: windows weighed by traffic with their
intervals and denominators, a change between days marked, the rate corrected for a calibrated
judge, skips by reason; outcomes filtered; outsiders get 404."""

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from experiments import services as experiment_services
from experiments.models import JudgeCalibration
from online.kind import online_run_inline
from online.models import OnlineRule
from online.services import online_sweep
from tests.support.factories import make_evalset_version, qa_rows

from .support import code_rule, llm_span, store

pytestmark = pytest.mark.django_db

# day 1: 10 % fail, day 2: 10 % fail, day 3: 40 % fail (200 spans a day)
FAILS = {1: 20, 2: 20, 3: 80}


@pytest.fixture
def three_days(workspace, user, monkeypatch):
    start = datetime(2026, 11, 30, tzinfo=UTC)
    rule = code_rule(workspace, user)
    OnlineRule.objects.filter(pk=rule.pk).update(swept_until=start)
    spans = []
    for day, fails in FAILS.items():
        at = start + timedelta(days=day - 1, hours=9)
        spans += [llm_span(workspace, output="no", expected="yes", at=at) for _ in range(fails)]
        spans += [
            llm_span(workspace, output="yes", expected="yes", at=at) for _ in range(200 - fails)
        ]
    store(spans)
    end = start + timedelta(days=3)
    run = online_sweep(rule_id=rule.pk, now=end)
    online_run_inline(run_id=run.pk)
    monkeypatch.setattr(timezone, "now", lambda: end - timedelta(hours=1))
    return rule


def _monitor(api, rule, **query):
    answer = api.get(f"/api/v1/online-rules/{rule.public_id}/monitor/", query)
    assert answer.status_code == 200, answer.content
    [evaluator] = answer.json()["evaluators"]
    return evaluator["windows"]


def test_day_windows_with_intervals_denominators_and_a_marked_change(api, three_days):
    windows = _monitor(api, three_days, window="day", count=3)
    assert [w["raw"]["decided"] for w in windows] == [200, 200, 200]
    assert [round(w["raw"]["fail_rate"], 3) for w in windows] == [0.1, 0.1, 0.4]
    assert [w["eligible"] for w in windows] == [200, 200, 200]
    assert [w["sampled"] for w in windows] == [200, 200, 200]
    low, high = windows[2]["raw"]["fail_interval"]
    assert low < 0.4 < high and high - low < 0.15
    assert windows[2]["raw"]["pass_rate"] == pytest.approx(0.6)
    assert [w["changed"] for w in windows[1:]] == [False, True]
    assert windows[2]["change_p"] < 0.001
    assert windows[0]["calibrated"] is None  # the version has no calibration
    assert windows[2]["latency_ms"][0] >= 0 and len(windows[2]["delay_ms"]) == 2


def test_the_calibrated_rate_corrects_for_the_judge(api, three_days, workspace, user):
    evaluator = three_days.evaluators.get()
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(3))
    experiment = experiment_services.experiment_create(
        workspace=workspace,
        user=user,
        name="labelled",
        evalset_version=version,
        bindings=[{"evaluator_version": evaluator.evaluator_version}],
    )
    # a judge that catches 80 % of fails and passes 95 % of passes
    confusion = {"tp": 80, "fn": 20, "fp": 10, "tn": 190, "judge_unknown": 0, "human_unknown": 0}
    JudgeCalibration.objects.create(
        evaluator_version=evaluator.evaluator_version,
        experiment=experiment,
        binding=experiment.bindings.get(),
        n=300,
        sensitivity=0.8,
        specificity=0.95,
        confusion=confusion,
    )
    last = _monitor(api, three_days, window="day", count=1)[0]
    # Rogan–Gladen: (0.4 + 0.95 - 1) / (0.8 + 0.95 - 1) = 0.4667
    assert last["calibrated"]["fail_rate"] == pytest.approx(0.35 / 0.75)
    raw_width = last["raw"]["fail_interval"][1] - last["raw"]["fail_interval"][0]
    low, high = last["calibrated"]["fail_interval"]
    assert low < 0.35 / 0.75 < high and high - low > raw_width


def test_hour_windows_and_bad_queries(api, three_days):
    windows = _monitor(api, three_days, window="hour", count=24)
    assert len(windows) == 24
    assert sum(w["eligible"] for w in windows) == 200  # the last day's spans, all at 09:00
    for query in ({"window": "month"}, {"count": 0}, {"count": 49}):
        answer = api.get(f"/api/v1/online-rules/{three_days.public_id}/monitor/", query)
        assert answer.status_code == 400, query


def test_results_are_filtered_and_paged(api, three_days):
    url = f"/api/v1/online-rules/{three_days.public_id}/results/"
    everything = api.get(url).json()
    assert everything["count"] == 600
    fails = api.get(url, {"verdict": "fail"}).json()
    assert fails["count"] == 120 and {r["verdict"] for r in fails["results"]} == {"fail"}
    one = fails["results"][0]
    assert api.get(url, {"trace_id": one["trace_id"]}).json()["count"] == 1
    assert api.get(url, {"verdict": "maybe"}).status_code == 400


def test_outsiders_get_404(outsider_api, three_days):
    for path in ("results", "monitor"):
        answer = outsider_api.get(f"/api/v1/online-rules/{three_days.public_id}/{path}/")
        assert answer.status_code == 404, path
