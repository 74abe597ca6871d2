"""Repetitions: intervals clustered by item, pass@k and pass^k, on synthetic data."""

import numpy as np
import pytest

from experiments.stats import bootstrap_ci
from experiments.stats import clustered as c
from experiments.stats.usage import usage_summary


def repeated(items: int, k: int, pass_probability, seed: int = 1):
    """k verdicts per item; each item has its own chance of passing (its difficulty)."""
    rng = np.random.default_rng(seed)
    ids, verdicts = [], []
    for item in range(items):
        p = pass_probability(item)
        for _ in range(k):
            ids.append(item)
            verdicts.append("pass" if rng.random() < p else "fail")
    return ids, verdicts


def fails_per_item(ids, verdicts):
    groups = c.item_groups(ids, verdicts)
    return [g.count("fail") for g in groups.values()], [len(g) for g in groups.values()]


def test_the_naive_interval_is_visibly_too_narrow_when_items_differ():
    # 50 items, 10 repetitions each: half the items (almost) always pass, half always fail.
    ids, verdicts = repeated(50, 10, lambda i: 0.95 if i % 2 else 0.05)
    fails, trials = fails_per_item(ids, verdicts)
    naive = bootstrap_ci(sum(fails), sum(trials) - sum(fails), seed=0)
    clustered = c.clustered_rate_ci(fails, trials)
    naive_width, clustered_width = naive[1] - naive[0], clustered[1] - clustered[0]
    assert clustered_width > 2.5 * naive_width
    # the clustered width is what 50 independent items give: about ±1.96 × 0.5/√50 ≈ ±0.13
    assert 0.2 < clustered_width < 0.33


def test_when_repetitions_are_independent_both_intervals_agree():
    ids, verdicts = repeated(200, 5, lambda i: 0.7)
    fails, trials = fails_per_item(ids, verdicts)
    naive = bootstrap_ci(sum(fails), sum(trials) - sum(fails), seed=0)
    clustered = c.clustered_rate_ci(fails, trials)
    assert abs((clustered[1] - clustered[0]) - (naive[1] - naive[0])) < 0.015


def test_the_normal_approximation_matches_the_bootstrap(monkeypatch):
    ids, verdicts = repeated(400, 4, lambda i: (i % 10) / 10)
    fails, trials = fails_per_item(ids, verdicts)
    boot = c.clustered_rate_ci(fails, trials)
    monkeypatch.setattr(c, "CLUSTER_BOOTSTRAP_MAX_ITEMS", 10)
    normal = c.clustered_rate_ci(fails, trials)
    assert normal == pytest.approx(boot, abs=0.01)


def test_small_runs_have_no_interval():
    assert c.clustered_rate_ci([1, 0], [3, 3]) is None
    assert c.clustered_mean_ci([1.0, 2.0], [3, 3]) is None


def test_the_clustered_mean_resamples_items():
    sums = [3.0] * 20 + [0.0] * 20  # 40 items of 3 repetitions: scores 1.0 or 0.0 per item
    low, high = c.clustered_mean_ci(sums, [3] * 40)
    assert low < 0.5 < high and high - low > 0.25


def test_pass_at_k_and_pass_all_k():
    ids = ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3
    verdicts = (
        ["pass", "pass", "pass"]  # all pass
        + ["fail", "pass", "fail"]  # one pass
        + ["fail", "fail", "fail"]  # none
        + ["pass", "unknown", "pass"]  # undecided repetition: counts for pass@k, not pass^k
    )
    scores = [1, 1, 1, 0, 1, 0, 0, 0, 0, 1, None, 1]
    summary = c.repetition_summary(ids, verdicts, scores, k=3)
    assert summary["pass_at_k"] == 3 / 4 and summary["pass_at_k_items"] == 4
    assert summary["pass_all_k"] == 1 / 3 and summary["pass_all_k_items"] == 3
    assert summary["item_pass_share_mean"] == pytest.approx((1 + 1 / 3 + 0 + 1) / 4)
    assert summary["item_mean_score"] == pytest.approx((1 + 1 / 3 + 0 + 1) / 4)


def test_usage_percentiles_and_totals():
    usage = usage_summary(
        latencies_ms=[100, 200, 300, 400, 0],
        tokens_in=[1, 2, 3, 4, 5],
        tokens_out=[1, 1, 1, 1, 1],
        costs=[0.5, None, 0.25, None, None],
    )
    assert usage["latency_ms"] == pytest.approx({"p50": 250.0, "p95": 385.0, "max": 400.0})
    assert (usage["tokens_in"], usage["tokens_out"], usage["rows"]) == (15, 5, 5)
    assert usage["cost"] == 0.75 and usage["priced_rows"] == 2
    assert usage_summary(latencies_ms=[], tokens_in=[], tokens_out=[], costs=[])["cost"] is None
