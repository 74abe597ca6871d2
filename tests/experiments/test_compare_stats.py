"""Paired comparison of two experiments: McNemar's exact test, flips and paired bootstrap CIs."""

import json
import uuid

import numpy as np
import pytest
from scipy import stats as scipy_stats

from experiments.stats import compare_paired, mcnemar_exact

# --- McNemar ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        (1, 9, 0.021484375),  # 2 * (1 + 10) / 2**10
        (9, 1, 0.021484375),
        (0, 0, 1.0),
        (5, 5, 1.0),  # 2 * P(X <= 5) > 1: capped
        (0, 5, 0.0625),  # 2 / 2**5
        (2, 8, 0.109375),  # 2 * (1 + 10 + 45) / 2**10
    ],
)
def test_mcnemar_exact_on_hand_computed_tables(b, c, expected):
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("b", "c"), [(3, 17), (40, 60), (250, 200), (0, 12), (1, 1)])
def test_mcnemar_exact_matches_scipy_binomtest(b, c):
    expected = scipy_stats.binomtest(b, b + c, 0.5, alternative="two-sided").pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-9)


def test_mcnemar_rejects_negative_counts():
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


# --- paired comparison -----------------------------------------------------------------------


def _runs(pp, pf, fp, ff, *, score_shift=0.0):
    """Baseline and candidate with the given pass→pass, pass→fail, fail→pass, fail→fail counts."""
    kinds = ["pp"] * pp + ["pf"] * pf + ["fp"] * fp + ["ff"] * ff
    rng = np.random.default_rng(0)
    baseline, candidate = {}, {}
    for i, kind in enumerate(kinds):
        score = float(rng.uniform(0.1, 0.8))
        baseline[f"item-{i}"] = ("pass" if kind[0] == "p" else "fail", score)
        candidate[f"item-{i}"] = ("pass" if kind[1] == "p" else "fail", score + score_shift)
    return baseline, candidate


def test_known_improvement_is_detected():
    # Baseline passes 60 %, candidate 70 % on 1,000 items: +0.10.
    baseline, candidate = _runs(550, 50, 150, 250)
    result = compare_paired(baseline, candidate, seed=1)
    assert result.n_paired == result.n_decided == 1000
    assert result.pass_rate_baseline == pytest.approx(0.6)
    assert result.pass_rate_candidate == pytest.approx(0.7)
    assert result.pass_rate_delta == pytest.approx(0.10)
    lower, upper = result.pass_rate_delta_ci
    assert lower < 0.10 < upper
    assert lower > 0
    assert result.mcnemar_p == pytest.approx(mcnemar_exact(50, 150))
    assert result.mcnemar_p < 1e-10
    assert (len(result.regressions), len(result.improvements), result.unchanged) == (50, 150, 800)
    assert result.plain_words == "better"


def test_known_regression_is_detected():
    candidate, baseline = _runs(550, 50, 150, 250)  # swapped: candidate is 10 points worse
    result = compare_paired(baseline, candidate, seed=2)
    assert result.pass_rate_delta == pytest.approx(-0.10)
    assert result.pass_rate_delta_ci[1] < 0
    assert result.plain_words == "worse"


def test_paired_ci_matches_resampling_the_pairs_directly():
    baseline, candidate = _runs(550, 50, 150, 250)
    result = compare_paired(baseline, candidate, seed=3)
    # Straightforward paired bootstrap: resample the per-item differences of pass indicators.
    diffs = np.array([0] * 550 + [-1] * 50 + [1] * 150 + [0] * 250, dtype=float)
    rng = np.random.default_rng(30)
    means = diffs[rng.integers(0, diffs.size, (10_000, diffs.size))].mean(axis=1)
    naive = np.percentile(means, [2.5, 97.5])
    assert result.pass_rate_delta_ci == pytest.approx(tuple(naive), abs=0.006)


def test_small_difference_is_not_called_a_winner():
    baseline, candidate = _runs(40, 5, 7, 48)
    result = compare_paired(baseline, candidate, seed=4)
    assert result.mcnemar_p > 0.05
    assert result.pass_rate_delta_ci[0] < 0 < result.pass_rate_delta_ci[1]
    assert result.plain_words == "no detectable difference at n = 100"


def test_identical_runs_show_no_difference():
    baseline, _ = _runs(70, 0, 0, 30)
    result = compare_paired(baseline, dict(baseline), seed=5)
    assert result.mcnemar_p == 1.0
    assert result.pass_rate_delta == 0.0
    assert result.pass_rate_delta_ci == (0.0, 0.0)
    assert result.mean_score_delta == 0.0
    assert result.plain_words == "no detectable difference at n = 100"


def test_pairing_with_missing_items():
    baseline = {"a": ("pass", 1.0), "b": ("fail", 0.0), "c": ("pass", 0.9)}
    candidate = {"c": ("fail", 0.2), "d": ("pass", 1.0), "a": ("pass", 0.8)}
    result = compare_paired(baseline, candidate, seed=6)
    assert result.n_paired == 2
    assert result.only_in_baseline == ["b"]
    assert result.only_in_candidate == ["d"]
    assert result.regressions == ["c"]
    assert result.improvements == []
    assert result.unchanged == 1
    assert result.pass_rate_baseline == 1.0 and result.pass_rate_candidate == 0.5


def test_tuple_ids_stay_whole():
    baseline = {(1, "x"): ("pass", 1.0), (2, "y"): ("fail", 0.0)}
    candidate = {(1, "x"): ("fail", 0.0), (2, "y"): ("fail", 0.0)}
    assert compare_paired(baseline, candidate).regressions == [(1, "x")]


def test_unknown_flips_are_kept_apart_from_regressions():
    baseline = {
        "p-to-u": ("pass", 0.9),
        "f-to-u": ("fail", 0.1),
        "u-to-f": ("unknown", None),
        "u-to-p": ("unknown", None),
        "u-to-u": ("unknown", None),
        "p-to-f": ("pass", 0.8),
    }
    candidate = {
        "p-to-u": ("unknown", None),
        "f-to-u": ("unknown", None),
        "u-to-f": ("fail", 0.0),
        "u-to-p": ("pass", 1.0),
        "u-to-u": ("unknown", None),
        "p-to-f": ("fail", 0.3),
    }
    result = compare_paired(baseline, candidate, seed=7)
    assert result.regressions == ["p-to-f"]
    assert result.improvements == []
    assert result.to_unknown == ["p-to-u", "f-to-u"]
    assert result.from_unknown == ["u-to-f", "u-to-p"]
    assert result.unchanged == 1  # unknown -> unknown
    assert result.n_decided == 1  # only p-to-f has pass/fail on both sides
    assert result.mcnemar_p == 1.0  # one discordant pair: b=1, c=0
    assert result.n_scored == 1
    assert result.mean_score_delta == pytest.approx(0.3 - 0.8)


def test_no_pass_fail_pairs_is_said_plainly():
    baseline = {"a": ("unknown", None), "b": ("pass", 1.0)}
    candidate = {"a": ("fail", 0.0), "b": ("unknown", None)}
    result = compare_paired(baseline, candidate)
    assert result.n_decided == 0
    assert result.pass_rate_delta is None and result.pass_rate_delta_ci is None
    assert result.mean_score_delta_ci is None
    assert result.mcnemar_p == 1.0
    assert result.plain_words == "no pass/fail pairs to compare"


def test_mean_score_difference_and_ci():
    baseline, candidate = _runs(300, 0, 0, 100, score_shift=0.05)
    baseline["no-score"] = ("unknown", None)
    candidate["no-score"] = ("pass", 0.9)
    result = compare_paired(baseline, candidate, seed=8)
    assert result.n_scored == 400
    assert result.mean_score_delta == pytest.approx(0.05)
    assert result.mean_score_delta_ci == pytest.approx((0.05, 0.05))
    assert result.mean_score_candidate - result.mean_score_baseline == pytest.approx(0.05)


def test_mean_score_ci_brackets_a_noisy_difference():
    rng = np.random.default_rng(9)
    base_scores = rng.random(500)
    cand_scores = np.clip(base_scores + 0.1 + rng.normal(0, 0.1, 500), 0, 1)
    baseline = {i: ("pass", float(s)) for i, s in enumerate(base_scores)}
    candidate = {i: ("pass", float(s)) for i, s in enumerate(cand_scores)}
    result = compare_paired(baseline, candidate, seed=9)
    lower, upper = result.mean_score_delta_ci
    assert lower < result.mean_score_delta < upper
    assert lower > 0.05 and upper < 0.15


def test_seeded_comparison_is_reproducible_and_json_safe():
    ids = [uuid.UUID(int=i) for i in range(60)]
    baseline = {item: ("pass" if i % 3 else "fail", i / 60) for i, item in enumerate(ids)}
    candidate = {item: ("pass" if i % 4 else "fail", i / 70) for i, item in enumerate(ids)}
    first = compare_paired(baseline, candidate, seed=10)
    assert compare_paired(baseline, candidate, seed=10) == first
    data = json.loads(json.dumps(first.to_dict()))
    assert data["regressions"] == [str(item) for item in first.regressions]
    assert data["pass_rate_delta_ci"] == list(first.pass_rate_delta_ci)
    assert data["plain_words"] == first.plain_words
