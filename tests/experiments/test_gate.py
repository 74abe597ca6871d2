"""The CI gate on synthetic pairs: noise passes, a real regression fails, a run that decided
nothing fails, McNemar's p is the exact one-sided tail, and the options (max drop, unknown rate,
min decided, the latest baseline) do what they say."""

import math

import pytest

from experiments import scoring as engine
from experiments import services
from tests.support.factories import make_code_version
from tests.support.gate_runs import pairs, verdict_runs


@pytest.fixture
def runs(workspace, user):
    """A function that builds a completed baseline and candidate from verdict lists."""
    return verdict_runs(workspace=workspace, user=user)


def gate(api, baseline, candidate, **options):
    query = {"baseline": baseline, "candidate": str(candidate.public_id), **options}
    return api.get("/api/v1/experiments/gate/", query)


def test_noise_passes(api, runs):
    baseline, candidate = runs(*pairs(down=5, up=4))
    response = gate(api, str(baseline.public_id), candidate)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["passed"] is True
    row = body["evaluators"][0]
    assert (row["regressions"], row["improvements"]) == (5, 4)
    assert row["p_worse"] > 0.05 and row["failed"] is False
    assert "Assay gate passed" in body["markdown"]


def test_a_real_regression_fails(api, runs):
    baseline, candidate = runs(*pairs(down=25, up=2))
    body = gate(api, str(baseline.public_id), candidate).json()
    assert body["passed"] is False
    row = body["evaluators"][0]
    assert row["p_worse"] < 0.001 and row["pass_rate_delta_ci"][1] < 0
    assert row["failed"] and "pass rate dropped 11.5 pts" in row["reasons"][0]
    assert "Assay gate failed" in body["markdown"] and "| Reader |" in body["markdown"]


def test_a_significant_drop_within_max_drop_passes(api, runs):
    baseline, candidate = runs(*pairs(n=600, down=30, up=4))
    strict = gate(api, str(baseline.public_id), candidate).json()
    lenient = gate(api, str(baseline.public_id), candidate, max_drop=0.1).json()
    assert strict["passed"] is False and lenient["passed"] is True


def test_too_many_unknowns_fail(api, runs):
    baseline, candidate = runs(*pairs(unknown=30))
    # 30 rows became unknown and none came back: significant (p = 2⁻³⁰) at the default alpha
    body = gate(api, str(baseline.public_id), candidate).json()
    assert body["passed"] is False and body["max_unknown_rate"] == 0.5
    [reason] = body["evaluators"][0]["reasons"]
    assert reason.startswith("unknown rate rose from 0.0% to 15.0% (30 rows became unknown, 0 ")
    capped = gate(api, str(baseline.public_id), candidate, max_unknown_rate=0.1).json()
    assert "unknown rate 15.0% above 10.0%" in capped["evaluators"][0]["reasons"]


def test_latest_is_the_newest_marked_baseline(api, runs):
    baseline, candidate = runs(*pairs(down=25, up=2))
    missing = gate(api, "latest", candidate)
    assert missing.status_code == 400 and "baseline" in missing.json()["error"]["details"]
    marked = api.post(
        f"/api/v1/experiments/{baseline.public_id}/baseline/", {"is_baseline": True}, format="json"
    )
    assert marked.status_code == 200 and marked.json()["is_baseline"] is True
    body = gate(api, "latest", candidate).json()
    assert body["baseline"]["id"] == str(baseline.public_id) and body["passed"] is False


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"alpha": 0.7}, "alpha"),
        ({"max_drop": -1}, "max_drop"),
        ({"max_unknown_rate": 2}, "max_unknown_rate"),
        ({"min_decided": -1}, "min_decided"),
        ({"min_decided": "many"}, "min_decided"),
    ],
)
def test_bad_options_are_named(api, runs, options, field):
    baseline, candidate = runs(*pairs(n=40))
    response = gate(api, str(baseline.public_id), candidate, **options)
    assert response.status_code == 400 and field in response.json()["error"]["details"]


def test_a_run_that_is_not_complete_cannot_be_gated(api, runs, workspace, user):
    baseline, candidate = runs(*pairs(n=40))
    draft = services.experiment_clone(experiment=candidate, user=user)
    response = gate(api, str(baseline.public_id), draft)
    assert response.status_code == 400 and "candidate" in response.json()["error"]["details"]


def test_a_signed_in_caller_names_the_workspace_in_the_query(web, runs):
    baseline, candidate = runs(*pairs(down=5, up=4))
    query = {
        "workspace": "acme",
        "baseline": str(baseline.public_id),
        "candidate": str(candidate.public_id),
    }
    response = web.get("/api/v1/experiments/gate/", query)
    assert response.status_code == 200, response.content
    assert response.json()["passed"] is True


def exact_one_sided(k: int, n: int) -> float:
    """P(X ≥ k) for X ~ Binomial(n, ½), by hand: the exact one-sided McNemar p."""
    return sum(math.comb(n, i) for i in range(k, n + 1)) / 2**n


def test_mcnemar_p_is_the_exact_one_sided_binomial_tail(api, runs):
    """10 regressions against 2 improvements: p = (C(12,10) + C(12,11) + C(12,12)) / 2¹² =
    79/4096 — not the two-sided 158/4096, nor a normal approximation."""
    baseline, candidate = runs(*pairs(down=10, up=2))
    row = gate(api, str(baseline.public_id), candidate).json()["evaluators"][0]
    assert (row["regressions"], row["improvements"]) == (10, 2)
    assert exact_one_sided(10, 12) == 79 / 4096
    assert row["p_worse"] == pytest.approx(79 / 4096, rel=1e-12, abs=0)
    # no flip either way: nothing to test, p = 1
    same = runs(*pairs(), name="same")
    assert gate(api, str(same[0].public_id), same[1]).json()["evaluators"][0]["p_worse"] == 1.0


def unknown_flips(n=200, to_unknown=0, from_unknown=0):
    """Baseline and candidate verdicts where `to_unknown` decided rows become unknown and
    `from_unknown` unknown rows become decided; every other row passes on both sides."""
    base = ["pass"] * n
    cand = list(base)
    for i in range(to_unknown):
        cand[i] = "unknown"
    for i in range(to_unknown, to_unknown + from_unknown):
        base[i] = "unknown"
    return base, cand


def test_the_unknown_test_is_the_same_exact_paired_test(api, runs):
    """7 rows became unknown, 1 became decided: p = (C(8,7) + C(8,8)) / 2⁸ = 9/256 < 0.05."""
    baseline, candidate = runs(*unknown_flips(to_unknown=7, from_unknown=1))
    body = gate(api, str(baseline.public_id), candidate).json()
    row = body["evaluators"][0]
    assert (row["to_unknown"], row["from_unknown"]) == (7, 1)
    assert row["p_more_unknown"] == pytest.approx(exact_one_sided(7, 8), rel=1e-12, abs=0)
    assert row["p_more_unknown"] == pytest.approx(9 / 256, rel=1e-12, abs=0)
    assert (row["unknown_rate_baseline"], row["unknown_rate"]) == (0.005, 0.035)
    assert body["passed"] is False
    assert row["reasons"] == [
        "unknown rate rose from 0.5% to 3.5% (7 rows became unknown, 1 became decided; p = 0.0352)"
    ]
    # at alpha 0.01 the same flips are noise
    assert gate(api, str(baseline.public_id), candidate, alpha=0.01).json()["passed"] is True


def test_unknown_flips_both_ways_are_noise(api, runs):
    baseline, candidate = runs(*unknown_flips(to_unknown=4, from_unknown=3))
    body = gate(api, str(baseline.public_id), candidate).json()
    assert body["passed"] is True and body["evaluators"][0]["p_more_unknown"] > 0.05


def test_a_run_that_decided_nothing_fails_by_default(api, runs):
    """The candidate's task raised on every row: every verdict unknown, none decided."""
    base, _ = pairs(n=200)
    baseline, candidate = runs(base, ["unknown"] * 200)
    body = gate(api, str(baseline.public_id), candidate).json()
    assert body["passed"] is False
    row = body["evaluators"][0]
    assert (row["n_decided"], row["to_unknown"], row["unknown_rate"]) == (0, 200, 1.0)
    assert row["reasons"][1:] == [
        "unknown rate 100.0% above 50.0%",
        "only 0 rows decided on both sides, fewer than 30",
    ]
    assert row["reasons"][0].startswith("unknown rate rose from 0.0% to 100.0% (200 rows")
    assert "❌ Assay gate failed" in body["markdown"]
    assert "max unknown rate 50.0%, min decided 30 rows" in body["markdown"]


def test_both_runs_undecided_still_fail_on_the_minimum(api, runs):
    """No flips (both sides all unknown), so only the unknown cap and the minimum can tell."""
    baseline, candidate = runs(["unknown"] * 40, ["unknown"] * 40)
    body = gate(api, str(baseline.public_id), candidate, max_unknown_rate=1).json()
    row = body["evaluators"][0]
    assert row["p_more_unknown"] == 1.0 and body["passed"] is False
    assert row["reasons"] == ["only 0 rows decided on both sides, fewer than 30"]


def test_min_decided_is_an_option_and_is_stated(api, runs):
    baseline, candidate = runs(*pairs(n=20))
    small = gate(api, str(baseline.public_id), candidate).json()
    assert small["passed"] is False and small["min_decided"] == 30
    [reason] = small["evaluators"][0]["reasons"]
    assert reason == "only 20 rows decided on both sides, fewer than 30"
    lowered = gate(api, str(baseline.public_id), candidate, min_decided=20).json()
    assert lowered["passed"] is True and "min decided 20 rows" in lowered["markdown"]


def test_one_minus_sign_and_no_signed_zero(api, runs):
    baseline, candidate = runs(*pairs(down=25, up=2))
    body = gate(api, str(baseline.public_id), candidate).json()
    text = body["markdown"] + "".join(body["evaluators"][0]["reasons"])
    assert "-" not in text.replace("| --- ", "")  # no hyphen-minus in any number
    assert "\u221211.5 pts" in body["markdown"]
    assert "0.0 pts)" in body["evaluators"][0]["reasons"][0]  # "below 0.0 pts", unsigned
    assert "\u22120.0" not in text and "+0.0" not in text
    same = runs(*pairs(), name="same")
    unchanged = gate(api, str(same[0].public_id), same[1]).json()["markdown"]
    assert "| 0.0 pts | [0.0 pts, 0.0 pts] |" in unchanged
    lenient = gate(api, str(baseline.public_id), candidate, max_drop=0.2, alpha=0.01).json()
    assert lenient["passed"] is True and "max drop 20 pts" in lenient["markdown"]


def test_a_gate_with_no_shared_evaluator_fails(api, runs, workspace, user):
    baseline, _ = runs(*pairs(n=40))
    other = make_code_version(workspace=workspace, user=user, name="Other")
    mapping = {"actual_output": "column:cand", "reference_output": "column:base"}
    candidate = services.experiment_create(
        workspace=workspace,
        user=user,
        name="other evaluator",
        evalset_version=baseline.evalset_version,
        bindings=[{"evaluator_version": other, "mapping": mapping}],
        launch=True,
    )
    candidate = engine.experiment_run_inline(experiment_id=candidate.pk)
    body = gate(api, str(baseline.public_id), candidate).json()
    assert body["passed"] is False and body["evaluators"] == []
    assert body["reasons"] == ["no evaluator ran in both runs, so nothing was compared"]
    assert body["not_compared"] == ["Reader", "Other"]
    assert "|\n\n**no evaluator ran in both runs, so nothing was compared**" in body["markdown"]
