"""Verdict policies, summaries and bootstrap confidence intervals (pure statistics layer)."""

import json
import math

import numpy as np
import pytest

from evaluators.policies import Policy, verdict_many
from experiments.stats import (
    MEAN_CI_BOOTSTRAP_MAX_N,
    bootstrap,
    bootstrap_ci,
    mean_ci,
    summarize,
)

THRESHOLD = Policy("threshold", 0.5)


# --- summaries -------------------------------------------------------------------------------


def test_summary_counts_rates_and_line():
    scores = [1.0] * 96 + [0.0] * 3 + [None]
    verdicts = ["pass"] * 96 + ["fail"] * 3 + ["unknown"]
    summary = summarize(scores, verdicts)
    assert (summary.passed, summary.fails, summary.nones) == (96, 3, 1)
    assert summary.total_evaluated == 99
    assert summary.total_processed == 100
    assert summary.pass_rate == pytest.approx(96 / 99)
    assert summary.fail_rate == pytest.approx(3 / 99)
    assert summary.line == "96 pass, 3 fail, 1 unknown"


def test_summary_moments_ignore_missing_scores():
    verdicts = ["fail", "unknown", "fail", "unknown", "pass"]
    summary = summarize([0.2, None, 0.4, float("nan"), 0.9], verdicts)
    assert summary.mean == pytest.approx(0.5)
    assert summary.std == pytest.approx(np.std([0.2, 0.4, 0.9]))


def test_summary_with_nothing_evaluated_has_no_rates():
    summary = summarize([None, None], ["unknown", "unknown"])
    assert summary.total_evaluated == 0
    assert summary.total_processed == 2
    assert summary.pass_rate is None and summary.fail_rate is None
    assert summary.mean is None and summary.std is None
    assert summary.histogram_counts == [0] * 10


def test_summary_histogram_covers_the_closed_unit_interval():
    summary = summarize([0.0, 0.05, 0.5, 0.99, 1.0], ["pass"] * 5, bins=4)
    assert summary.histogram_edges == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert summary.histogram_counts == [2, 0, 1, 2]  # 1.0 lands in the last bin


def test_summary_per_tag_breakdown_with_several_tags_per_row():
    scores = [1.0, 0.0, None, 1.0, 0.0]
    verdicts = ["pass", "fail", "unknown", "pass", "fail"]
    tags = [["jailbreak", "pii"], ["jailbreak"], ["pii", "pii"], None, "pii"]
    summary = summarize(scores, verdicts, tags)
    assert summary.tags == {
        "jailbreak": {"passed": 1, "fails": 1, "total_evaluated": 2, "nones": 0},
        "pii": {"passed": 1, "fails": 1, "total_evaluated": 2, "nones": 1},
    }
    assert list(summary.tags) == ["jailbreak", "pii"]


def test_summary_to_dict_is_json_safe():
    summary = summarize([0.5, None], ["pass", "unknown"], [["a"], []])
    data = json.loads(json.dumps(summary.to_dict()))
    assert data["line"] == "1 pass, 0 fail, 1 unknown"
    assert data["histogram"]["counts"][5] == 1
    assert data["tags"] == {"a": {"passed": 1, "fails": 0, "total_evaluated": 1, "nones": 0}}


def test_summary_rejects_misaligned_or_bad_input():
    with pytest.raises(ValueError):
        summarize([0.5], ["pass", "fail"])
    with pytest.raises(ValueError):
        summarize([0.5], ["passed"])
    with pytest.raises(ValueError):
        summarize([0.5], ["pass"], [["a"], ["b"]])


def test_summary_of_many_rows_matches_a_plain_count():
    rng = np.random.default_rng(3)
    n = 100_000
    scores = rng.random(n)
    scores[rng.random(n) < 0.02] = np.nan
    verdicts = verdict_many(scores, THRESHOLD, "quality")
    tag_names = ["a", "b", "c"]
    tags = [[tag_names[i % 3]] + (["z"] if i % 7 == 0 else []) for i in range(n)]
    summary = summarize(scores.tolist(), verdicts, tags)
    assert summary.passed == verdicts.count("pass")
    assert summary.nones == int(np.isnan(scores).sum())
    assert sum(summary.histogram_counts) == n - summary.nones
    z_rows = [v for i, v in enumerate(verdicts) if i % 7 == 0]
    assert summary.tags["z"]["fails"] == z_rows.count("fail")
    assert sum(t["total_evaluated"] for k, t in summary.tags.items() if k != "z") == (
        summary.total_evaluated
    )


# --- bootstrap CI of the fail rate -----------------------------------------------------------


@pytest.mark.parametrize("exact", [False, True])
def test_all_pass_and_all_fail_bounds(exact):
    assert bootstrap_ci(0, 50, seed=1, exact_garak=exact) == (0.0, 0.0)
    assert bootstrap_ci(50, 0, seed=1, exact_garak=exact) == (1.0, 1.0)


def test_no_interval_below_min_sample():
    assert bootstrap_ci(10, 19) is None
    assert bootstrap_ci(0, 0) is None
    assert bootstrap_ci(10, 20, seed=0) is not None
    assert bootstrap_ci(5, 5, min_sample=10, seed=0) is not None
    assert bootstrap_ci(10, 40, min_sample=100) is None


def test_seeded_default_mode_is_reproducible():
    first = bootstrap_ci(20, 80, seed=123)
    assert bootstrap_ci(20, 80, seed=123) == first
    assert first[0] < 0.2 < first[1]


def test_default_mode_matches_the_normal_approximation_at_large_n():
    lower, upper = bootstrap_ci(300, 700, seed=5)
    half = 1.96 * math.sqrt(0.3 * 0.7 / 1000)
    assert lower == pytest.approx(0.3 - half, abs=0.004)
    assert upper == pytest.approx(0.3 + half, abs=0.004)


def test_default_mode_agrees_with_garak_exact_mode_statistically():
    fast = bootstrap_ci(20, 80, seed=9)
    exact = bootstrap_ci(20, 80, seed=9, exact_garak=True)
    assert fast[0] == pytest.approx(exact[0], abs=0.02)
    assert fast[1] == pytest.approx(exact[1], abs=0.02)


def test_rogan_gladen_correction_moves_bounds():
    se, sp = 0.9, 0.95
    plain = bootstrap_ci(20, 80, seed=11)
    corrected = bootstrap_ci(20, 80, sensitivity=se, specificity=sp, seed=11)
    # Same seed, same resamples: each bound is the plain bound pushed through the correction.
    for raw, fixed in zip(plain, corrected, strict=True):
        assert fixed == pytest.approx((raw + sp - 1) / (se + sp - 1), abs=1e-12)
    # Below 1/3 the correction for false alarms lowers the fail rate.
    assert corrected[0] < plain[0] and corrected[1] < plain[1]


def test_rogan_gladen_clips_to_the_unit_interval():
    lower, _ = bootstrap_ci(2, 98, sensitivity=0.9, specificity=0.9, seed=2)
    assert lower == 0.0  # (0.02 - 0.1) / 0.8 < 0


@pytest.mark.parametrize("exact", [False, True])
def test_correction_falls_back_when_judge_is_uninformative(exact):
    plain = bootstrap_ci(20, 80, seed=4, exact_garak=exact)
    assert bootstrap_ci(20, 80, sensitivity=0.5, specificity=0.505, seed=4, exact_garak=exact) == (
        plain
    )
    assert bootstrap_ci(20, 80, sensitivity=0.5, specificity=0.52, seed=4) != plain


def test_bootstrap_rejects_bad_arguments():
    with pytest.raises(ValueError):
        bootstrap_ci(-1, 40)
    with pytest.raises(ValueError):
        bootstrap_ci(10, 40, confidence=1.0)
    with pytest.raises(ValueError):
        bootstrap_ci(10, 40, iterations=0)


def _garak_loop(fails, passes, *, seed, se=1.0, sp=1.0, iterations=10_000, confidence=0.95):
    """garak 0.17's procedure (garak/analyze/bootstrap_ci.py) written out straightforwardly:
    global seed, one choice() per iteration, no correction for a perfect detector, bounds
    clipped in percent and divided by 100 as its eval record does."""
    data = np.array([1] * fails + [0] * passes, dtype=float)
    saved = np.random.get_state()
    np.random.seed(seed)
    try:
        denominator = se + sp - 1.0
        if abs(denominator) < 0.01:
            se, sp, denominator = 1.0, 1.0, 1.0
        perfect = np.isclose(denominator, 1.0)
        rates = np.empty(iterations)
        for i in range(iterations):
            p_obs = np.random.choice(data, size=data.size, replace=True).mean()
            rates[i] = p_obs if perfect else np.clip((p_obs + sp - 1.0) / denominator, 0.0, 1.0)
    finally:
        np.random.set_state(saved)
    alpha = 1 - confidence
    lower, upper = np.percentile(rates, [(alpha / 2) * 100, (1 - alpha / 2) * 100])
    return float(np.clip(lower * 100, 0.0, 100.0) / 100), float(np.clip(upper * 100, 0, 100) / 100)


def test_choice_with_replacement_consumes_the_stream_like_one_randint_block():
    # The premise of the vectorised exact mode, checked on this numpy.
    looped = np.random.RandomState(17)
    rows = [looped.choice(np.arange(37), size=37, replace=True) for _ in range(50)]
    block = np.random.RandomState(17).randint(0, 37, (50, 37))
    assert np.array_equal(np.stack(rows), block)


@pytest.mark.parametrize(("fails", "passes"), [(20, 80), (15, 15)])
@pytest.mark.parametrize("seed", [0, 2024])
def test_exact_mode_reproduces_garak_bit_for_bit(fails, passes, seed):
    expected = _garak_loop(fails, passes, seed=seed)
    assert bootstrap_ci(fails, passes, seed=seed, exact_garak=True) == expected


def test_exact_mode_reproduces_garak_with_correction():
    expected = _garak_loop(20, 80, seed=3, se=0.9, sp=0.95)
    assert bootstrap_ci(20, 80, sensitivity=0.9, specificity=0.95, seed=3, exact_garak=True) == (
        expected
    )


def test_exact_mode_is_identical_when_drawn_in_small_blocks(monkeypatch):
    expected = _garak_loop(20, 80, seed=8, iterations=2_000)
    # 1,000 elements per block = 10 resamples per block: many block boundaries.
    monkeypatch.setattr(bootstrap, "EXACT_BLOCK_ELEMENTS", 1_000)
    assert bootstrap_ci(20, 80, seed=8, iterations=2_000, exact_garak=True) == expected


# --- CI of the mean score --------------------------------------------------------------------


def test_mean_ci_needs_min_sample_of_real_scores():
    assert mean_ci([0.5] * 29 + [None] * 10) is None
    assert mean_ci([0.5] * 30 + [None] * 10, seed=0) == (0.5, 0.5)
    assert mean_ci([0.1, 0.9], min_sample=2, seed=0) is not None


def test_mean_ci_small_n_bootstrap_brackets_the_mean_and_is_seeded():
    scores = np.random.default_rng(1).random(200)
    lower, upper = mean_ci(scores, seed=7)
    assert mean_ci(scores, seed=7) == (lower, upper)
    half = 1.96 * scores.std() / math.sqrt(scores.size)
    assert lower == pytest.approx(scores.mean() - half, abs=0.01)
    assert upper == pytest.approx(scores.mean() + half, abs=0.01)


def test_mean_ci_large_n_uses_the_normal_approximation():
    scores = np.random.default_rng(2).random(50_000)
    lower, upper = mean_ci(scores)
    half = 1.959963984540054 * scores.std() / math.sqrt(scores.size)
    assert lower == pytest.approx(scores.mean() - half, abs=1e-12)
    assert upper == pytest.approx(scores.mean() + half, abs=1e-12)


def test_mean_ci_methods_agree_at_the_switch_point():
    scores = np.random.default_rng(4).beta(2, 5, MEAN_CI_BOOTSTRAP_MAX_N + 1)
    normal = mean_ci(scores)
    resampled = mean_ci(scores[:-1], seed=4)
    assert normal[0] == pytest.approx(resampled[0], abs=0.002)
    assert normal[1] == pytest.approx(resampled[1], abs=0.002)


# The interval the product ships (default mode, seed 0, as the aggregates compute it), pinned:
# a change of sampler, seed handling or percentile rule shows up here, not in a user's report.
SHIPPED = [
    ((3, 27), (0.0, 0.2333333333333334)),
    ((10, 90), (0.050000000000000044, 0.15999999999999992)),
    ((50, 50), (0.3999999999999999, 0.6000000000000001)),
    ((0, 40), (0.0, 0.0)),
    ((40, 0), (1.0, 1.0)),
    ((7, 293), (0.006666666666666599, 0.043333333333333446)),
    ((24, 30), (0.3148148148148149, 0.574074074074074)),
]


@pytest.mark.parametrize(("counts", "expected"), SHIPPED)
def test_the_shipped_interval_is_pinned_on_known_vectors(counts, expected):
    from experiments.stats.interval_settings import DEFAULTS  # what a run uses unless set

    fails, passes = counts
    shipped = {k: DEFAULTS[k] for k in ("iterations", "confidence", "min_sample", "seed")}
    assert bootstrap_ci(fails, passes, exact_garak=DEFAULTS["exact_garak"], **shipped) == expected
    # and it is a sensible interval: within five points of Wilson's at these sizes
    n, p = fails + passes, fails / (fails + passes)
    z = 1.959963984540054
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    if 0 < fails < n:
        assert abs(expected[0] - (centre - half)) < 0.05
        assert abs(expected[1] - (centre + half)) < 0.05


def test_the_dashboard_pass_interval_is_the_fail_interval_mirrored(workspace, user):
    from experiments.results.dashboard import dashboard_cards
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(54))
    ev = make_code_version(workspace=workspace, user=user)
    experiment = run_inline(workspace=workspace, user=user, version=version, evaluator_version=ev)
    (card,) = dashboard_cards(experiment)
    fail_low, fail_high = card["summary"]["fail_rate_ci"]
    assert card["pass_ci"] == (1 - fail_high, 1 - fail_low)
    expected = bootstrap_ci(card["summary"]["fails"], card["summary"]["passed"], seed=0)
    assert (fail_low, fail_high) == expected


def _one_draw_means(scores: np.ndarray, seed: int, iterations: int = 10_000) -> np.ndarray:
    """The mean bootstrap drawn as one B x n block (what any blocking must reproduce)."""
    idx = np.random.default_rng(seed).integers(0, scores.size, size=(iterations, scores.size))
    return scores[idx].mean(axis=1)


@pytest.mark.parametrize("n", [30, 131, 1_999, MEAN_CI_BOOTSTRAP_MAX_N])
def test_mean_bootstrap_in_blocks_equals_one_draw_to_the_last_bit(n):
    scores = np.random.default_rng(n).random(n)
    means = bootstrap._bootstrap_means(scores, 10_000, np.random.default_rng(9))
    assert np.array_equal(means, _one_draw_means(scores, 9))
    assert mean_ci(scores, seed=9) == bootstrap.percentile_bounds(_one_draw_means(scores, 9), 0.95)


def test_few_distinct_scores_resample_their_counts_with_the_rows_own_distribution():
    """Judge scores (0, 0.5, 1): the resample means come from multinomial value counts, and
    their distribution is the row resampling's (percentiles of 200,000 resamples each)."""
    scores = np.random.default_rng(3).choice([0.0, 0.5, 1.0], size=400, p=[0.2, 0.3, 0.5])
    distinct, counts = np.unique(scores, return_counts=True)
    means = bootstrap._bootstrap_means(scores, 10_000, np.random.default_rng(6))
    counted = bootstrap._counted_means(distinct, counts, 10_000, np.random.default_rng(6))
    assert np.array_equal(means, counted)  # the counted path is the one taken
    by_counts = bootstrap._counted_means(distinct, counts, 200_000, np.random.default_rng(1))
    by_rows = bootstrap._indexed_means(scores, 200_000, np.random.default_rng(2))
    for q in (2.5, 50, 97.5):
        assert np.percentile(by_counts, q) == pytest.approx(np.percentile(by_rows, q), abs=0.002)
    assert by_counts.mean() == pytest.approx(scores.mean(), abs=0.0005)
    assert by_counts.std() == pytest.approx(by_rows.std(), rel=0.01)


def test_many_distinct_scores_still_resample_rows():
    scores = np.random.default_rng(8).random(100)
    means = bootstrap._bootstrap_means(scores, 1_000, np.random.default_rng(4))
    assert np.array_equal(means, bootstrap._indexed_means(scores, 1_000, np.random.default_rng(4)))


def test_mean_bootstrap_holds_a_small_block_of_draws_at_a_time():
    import tracemalloc

    scores = np.random.default_rng(5).random(MEAN_CI_BOOTSTRAP_MAX_N)
    tracemalloc.start()
    try:
        mean_ci(scores, seed=5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # 10,000 x 2,000 draws in blocks of ~1 MB (the indices and their scores), never 32 MB ones
    assert peak < 4 * 1024 * 1024
