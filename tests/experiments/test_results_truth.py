"""Aggregates, human correction, judge calibration, exports, relative standing, dashboard."""

import json

import pytest

from evalsets.models import EvalSetItem
from experiments import services
from experiments.models import JudgeCalibration, Result
from experiments.results.calibration import agreement_metrics, confusion_counts
from experiments.results.dashboard import dashboard_cards
from experiments.results.exports import export_stream
from experiments.results.standing import band
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db


def run(workspace, user, version, ev, name="run"):
    return run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=ev, name=name
    )


@pytest.fixture
def finished(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(60, error_every=10))
    ev = make_code_version(workspace=workspace, user=user)
    return run(workspace, user, version, ev)


def test_aggregate_counts_never_treat_errors_as_passes(finished):
    summary = finished.aggregates.get().summary
    # the 6 error rows are odd (would-fail) rows: unknown, neither pass nor fail
    assert (summary["passed"], summary["fails"], summary["nones"]) == (30, 24, 6)
    assert summary["total_evaluated"] == 54 and summary["total_processed"] == 60
    assert summary["pass_rate"] == 30 / 54 and summary["statuses"] == {"success": 54, "error": 6}
    lower, upper = summary["fail_rate_ci"]
    assert lower < 24 / 54 < upper
    assert summary["line"] == "30 pass, 24 fail, 6 unknown"


def test_human_correction_keeps_the_original_and_updates_counts(finished, user):
    result = Result.objects.filter(experiment=finished, verdict="fail").first()
    services.result_correct(
        result=result, user=user, verdict="pass", note="synonym accepted", score=1.0
    )
    result.refresh_from_db()
    assert result.verdict == "fail" and result.human_verdict == "pass"
    assert result.corrected_by == user and result.correction_note == "synonym accepted"
    summary = finished.aggregates.get().summary
    assert (summary["passed"], summary["fails"], summary["corrected"]) == (31, 23, 1)
    with pytest.raises(Exception, match="why"):
        services.result_correct(result=result, user=user, verdict="fail", note="")
    services.result_correct(result=result, user=user, verdict="", note="")
    assert finished.aggregates.get().summary["passed"] == 30


def test_confusion_and_agreement_metrics_by_hand():
    pairs = (
        [("fail", "fail")] * 40
        + [("pass", "fail")] * 10
        + [("fail", "pass")] * 5
        + [("pass", "pass")] * 45
        + [("unknown", "pass")] * 3
        + [("pass", "unknown")] * 2
    )
    counts = confusion_counts(pairs)
    assert counts == {"tp": 40, "fn": 10, "fp": 5, "tn": 45, "judge_unknown": 3, "human_unknown": 2}
    metrics = agreement_metrics(counts)
    assert metrics["n"] == 100 and metrics["agreement"] == 0.85
    assert metrics["sensitivity"] == 0.8 and metrics["specificity"] == 0.9
    # kappa: po = .85, pe = (.45*.5 + .55*.5) = .5 → .7
    assert metrics["kappa"] == pytest.approx(0.7)
    assert agreement_metrics(confusion_counts([]))["kappa"] is None


def test_calibration_is_recorded_and_corrects_later_runs(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(80), name="L")
    items = list(EvalSetItem.objects.filter(version=version).order_by("position"))
    for i, item in enumerate(items):
        # humans agree with the judge except on rows 0 and 7 of every 8 (one each way)
        truth = "pass" if i % 2 == 0 else "fail"
        if i % 8 in (0, 7):
            truth = "pass" if truth == "fail" else "fail"
        item.human_verdict = truth
    EvalSetItem.objects.bulk_update(items, ["human_verdict"])
    ev = make_code_version(workspace=workspace, user=user)
    labelled = run(workspace, user, version, ev, name="labelled")
    calibration = JudgeCalibration.objects.get(experiment=labelled)
    assert calibration.n == 80 and calibration.usable
    assert calibration.confusion["tp"] + calibration.confusion["fn"] == 40
    assert calibration.confusion["fp"] == 10 and calibration.confusion["tn"] == 30
    assert calibration.sensitivity == pytest.approx(0.75)
    assert calibration.specificity == pytest.approx(0.75)
    assert calibration.kappa == pytest.approx(0.5)
    assert labelled.aggregates.get().summary["calibration"]["applied"] is False
    later = run(workspace, user, version, ev, name="later")
    applied = later.aggregates.get().summary["calibration"]
    assert applied["applied"] is True and applied["sensitivity"] == calibration.sensitivity
    plain = labelled.aggregates.get().summary["fail_rate_ci"]
    corrected = later.aggregates.get().summary["fail_rate_ci"]
    assert corrected != plain


def test_exports(finished, user):
    csv_text = "".join(export_stream(finished, "csv"))
    lines = csv_text.strip().splitlines()
    assert lines[0].startswith("item_id,position,repeat,tags,evaluator") and len(lines) == 61
    rows = [json.loads(line) for line in "".join(export_stream(finished, "jsonl")).splitlines()]
    assert len(rows) == 60 and {r["status"] for r in rows} == {"success", "error"}
    report = [json.loads(line) for line in "".join(export_stream(finished, "report")).splitlines()]
    kinds = [r["entry_type"] for r in report]
    assert kinds == ["start_run setup", "init", "eval", "probe_summary", "completion"]
    entry = report[2]
    assert (entry["passed"], entry["fails"], entry["nones"]) == (30, 24, 6)
    assert entry["total_evaluated"] == 54 and entry["total_processed"] == 60
    assert entry["confidence_method"] == "bootstrap" and entry["confidence"] == 0.95
    assert 0 < entry["confidence_lower"] < entry["confidence_upper"] < 1
    assert set(entry["intents"]) == {"even", "odd"}
    hits = [json.loads(line) for line in "".join(export_stream(finished, "hitlog")).splitlines()]
    assert len(hits) == 24 and all(h["output"]["text"] == "The capital is Lyon" for h in hits)


def test_export_command(finished, tmp_path):
    from django.core.management import call_command

    target = tmp_path / "report.jsonl"
    call_command("export_results", str(finished.public_id), "--format", "report", "-o", str(target))
    assert json.loads(target.read_text().splitlines()[-2])["entry_type"] == "probe_summary"


def test_standing_bands_and_history(workspace, user):
    # garak's score_to_defcon: a strict `<` at every bound, so a bound belongs to the band above
    assert [band(z) for z in (-2, -1, -0.5, -0.125, 0, 0.125, 0.5, 1, 1.5)] == [
        "far below",
        "below",
        "below",
        "typical",
        "typical",
        "above",
        "above",
        "far above",
        "far above",
    ]
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40))
    ev = make_code_version(workspace=workspace, user=user)
    runs = [run(workspace, user, version, ev, name=f"r{i}") for i in range(4)]
    first = dashboard_cards(runs[0])[0]["standing"]
    assert first["level"] is None and first["text"] == "not enough history"
    last = dashboard_cards(runs[3])[0]["standing"]
    # identical runs: z = 0 / max(std=0, 1/30) = 0 → typical
    assert last["n"] == 3 and last["level"] == "typical" and last["z"] == 0


def test_dashboard_cards_hide_interval_below_min_sample(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(12))
    ev = make_code_version(workspace=workspace, user=user)
    card = dashboard_cards(run(workspace, user, version, ev))[0]
    assert card["pass_ci"] is None and card["ci_note"] == "n = 12 < 30: no interval"
    assert [c for _, c, _ in card["bar"]] == [6, 6, 0]


def test_calibration_is_shown_on_the_run_that_measured_it(workspace, user, web):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40), name="H")
    items = list(EvalSetItem.objects.filter(version=version).order_by("position"))
    for i, item in enumerate(items):
        item.human_verdict = "pass" if i % 2 == 0 or i % 10 == 9 else "fail"
    EvalSetItem.objects.bulk_update(items, ["human_verdict"])
    ev = make_code_version(workspace=workspace, user=user)
    labelled = run(workspace, user, version, ev, name="labelled")
    html = web.get(f"/w/acme/experiments/{labelled.public_id}/").content.decode()
    assert "Judge calibration against human verdicts (n = 40)" in html
    assert "Agreement <strong>90.0%</strong>" in html and "specificity 0.83" in html
