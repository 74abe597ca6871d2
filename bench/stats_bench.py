"""Timings of the experiment statistics layer. Prints figures; asserts nothing.

Run from the repository root: ``.venv/bin/python bench/stats_bench.py``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

# Make the repository importable when run as a script from anywhere.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evaluators.policies import Policy, verdict_many  # noqa: E402
from experiments.stats import (  # noqa: E402
    bootstrap_ci,
    compare_paired,
    krippendorff_alpha,
    mean_ci,
    reviewer_agreement,
    summarize,
)
from experiments.stats.agreement import alpha_interval  # noqa: E402


def timed(label: str, func: Callable[[], object], *, repeat: int = 5, target: str = "") -> None:
    """Print the best of ``repeat`` wall-clock runs in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    suffix = f"  (target {target})" if target else ""
    print(f"{label:<58} {best * 1000:9.2f} ms{suffix}")


def results(n: int, rng: np.random.Generator) -> tuple[list, list, list]:
    """n synthetic results: scores with 1% missing, their verdicts and 1-2 tags per row."""
    scores = rng.random(n)
    scores[rng.random(n) < 0.01] = np.nan
    score_list = [None if np.isnan(s) else float(s) for s in scores]
    verdicts = verdict_many(score_list, Policy("threshold", 0.5), "quality")
    names = ["jailbreak", "pii", "toxicity", "bias", "leak"]
    tags = [[names[i % 5]] + (["multi-turn"] if i % 4 == 0 else []) for i in range(n)]
    return score_list, verdicts, tags


def runs(n: int, rng: np.random.Generator) -> tuple[dict, dict]:
    """Two runs over n items: baseline passes ~60 %, candidate ~70 %, 2 % unknown each."""

    def one(pass_rate: float) -> dict:
        draws = rng.random(n)
        unknown = rng.random(n) < 0.02
        return {
            f"item-{i}": ("unknown", None)
            if unknown[i]
            else ("pass" if draws[i] < pass_rate else "fail", float(draws[i]))
            for i in range(n)
        }

    return one(0.6), one(0.7)


def reviews(n: int, reviewers: int, level: str, rng: np.random.Generator) -> list[dict]:
    """n items each labelled by every reviewer with 20 % skipped: nominal labels of three
    kinds, a five-point ordinal scale, or interval scores that all differ."""
    truth = rng.integers(1, 6, n)
    if level == "nominal":
        labels = np.where(rng.random((reviewers, n)) < 0.7, truth % 3, rng.integers(0, 3, n))
    elif level == "ordinal":
        labels = np.clip(truth + rng.integers(-1, 2, (reviewers, n)), 1, 5)
    else:
        labels = truth + rng.normal(0, 0.7, (reviewers, n))
    kept = rng.random((reviewers, n)) >= 0.2
    return [
        {f"r{r}": labels[r, u].item() for r in range(reviewers) if kept[r, u]} for u in range(n)
    ]


def agreement_timings(rng: np.random.Generator) -> None:
    """Alpha, its interval (10,000 resamples) and everything a queue's page shows, per level."""
    for level in ("nominal", "ordinal", "interval"):
        items = reviews(10_000, 5, level, rng)
        where = f"{level}, 5 reviewers x 10,000 items"
        timed(f"krippendorff_alpha, {where}", partial(krippendorff_alpha, items, level=level))
        timed(
            f"alpha_interval, {where}",
            partial(alpha_interval, items, level=level, seed=1),
            repeat=2,
        )
        timed(
            f"reviewer_agreement (+ kappas, leave-one-out), {level}",
            partial(reviewer_agreement, items, level=level, seed=1),
            repeat=2,
        )


def main() -> None:
    """Time every public statistic at the sizes a large experiment reaches."""
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}, B = 10,000 resamples throughout")
    n = 1_000_000
    timed(
        f"bootstrap_ci default, n = {n:,}",
        lambda: bootstrap_ci(300_000, 700_000, seed=1),
        target="< 5 ms",
    )
    timed(
        f"bootstrap_ci default + Rogan-Gladen, n = {n:,}",
        lambda: bootstrap_ci(300_000, 700_000, sensitivity=0.9, specificity=0.95, seed=1),
    )
    timed(
        "bootstrap_ci exact_garak, n = 10,000",
        lambda: bootstrap_ci(3_000, 7_000, seed=1, exact_garak=True),
        repeat=2,
    )
    timed(
        "bootstrap_ci exact_garak, n = 100", lambda: bootstrap_ci(20, 80, seed=1, exact_garak=True)
    )
    scores = rng.random(n)
    timed(f"mean_ci, n = {n:,} (normal approximation)", lambda: mean_ci(scores))
    timed("mean_ci, n = 2,000 (row bootstrap)", lambda: mean_ci(scores[:2_000], seed=1))
    score_list, verdicts, tags = results(100_000, rng)
    timed("summarize, 100,000 results with tags", lambda: summarize(score_list, verdicts, tags))
    timed("summarize, 100,000 results without tags", lambda: summarize(score_list, verdicts))
    timed(
        "verdict_many, 100,000 scores",
        lambda: verdict_many(score_list, Policy("threshold", 0.5), "quality"),
    )
    baseline, candidate = runs(100_000, rng)
    timed(
        "compare_paired, 100,000 items",
        lambda: compare_paired(baseline, candidate, seed=1),
        repeat=3,
    )
    agreement_timings(rng)


if __name__ == "__main__":
    main()
