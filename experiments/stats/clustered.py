"""Statistics of repeated runs: k rows per item are not k independent observations.

With repetitions, rows of one item share that item's difficulty, so intervals that treat every
row as independent are too narrow. Every interval here is clustered by item: the bootstrap
resamples items (all of an item's repetitions together), never single repetitions, like
Inspect's `stderr(cluster=...)`. Above `CLUSTER_BOOTSTRAP_MAX_ITEMS` items the same interval
comes from the cluster-robust variance of the ratio estimator (a normal approximation that
agrees with the bootstrap at such sizes and costs O(items)).

pass@k: the share of items where at least one of their decided repetitions passed; pass^k: the
share of items whose k repetitions were all decided and all passed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from assay.vocabulary import Verdict

from .bootstrap import check_confidence, check_iterations, percentile_bounds, rogan_gladen
from .columns import first_seen_index
from .summary import verdict_codes

CLUSTER_BOOTSTRAP_MAX_ITEMS = 2_000
BLOCK_ELEMENTS = 1 << 22


def item_groups(items: Sequence[Hashable], values: Sequence) -> dict[Hashable, list]:
    """Values grouped by item, in first-seen order."""
    groups: dict[Hashable, list] = {}
    for item, value in zip(items, values, strict=True):
        groups.setdefault(item, []).append(value)
    return groups


def collapse_repetitions(rows) -> dict[Hashable, tuple[str, float | None]]:
    """(item, verdict, score) rows → item: (majority verdict, mean score), so that an item with
    repetitions counts once in a paired comparison. A tie (or no decided repetition) is
    unknown; with one row per item this is that row."""
    groups = item_groups([r[0] for r in rows], [(r[1], r[2]) for r in rows])
    collapsed = {}
    for item, outcomes in groups.items():
        passes = sum(v == Verdict.PASS for v, _s in outcomes)
        fails = sum(v == Verdict.FAIL for v, _s in outcomes)
        verdict = Verdict.PASS if passes > fails else Verdict.FAIL if fails > passes else None
        scores = [s for _v, s in outcomes if s is not None]
        mean = sum(scores) / len(scores) if scores else None
        collapsed[item] = (verdict or Verdict.UNKNOWN, mean)
    return collapsed


def clustered_rate_ci(
    hits: Sequence[int] | np.ndarray,
    trials: Sequence[int] | np.ndarray,
    *,
    sensitivity: float = 1.0,
    specificity: float = 1.0,
    iterations: int = 10_000,
    confidence: float = 0.95,
    min_sample: int = 30,
    seed: int | None = 0,
) -> tuple[float, float] | None:
    """CI of Σhits / Σtrials (e.g. fails over decided rows) with rows clustered in items
    (`hits[i]`, `trials[i]` per item), Rogan–Gladen corrected like `bootstrap_ci`. None below
    `min_sample` decided rows."""
    return _clustered_ci(
        hits,
        trials,
        lambda rates: rogan_gladen(rates, sensitivity, specificity),
        iterations=iterations,
        confidence=confidence,
        min_sample=min_sample,
        seed=seed,
    )


def clustered_mean_ci(
    sums: Sequence[float] | np.ndarray,
    counts: Sequence[int] | np.ndarray,
    *,
    iterations: int = 10_000,
    confidence: float = 0.95,
    min_sample: int = 30,
    seed: int | None = 0,
) -> tuple[float, float] | None:
    """CI of the mean score Σsums / Σcounts with scores clustered in items."""
    return _clustered_ci(
        sums,
        counts,
        lambda means: means,
        iterations=iterations,
        confidence=confidence,
        min_sample=min_sample,
        seed=seed,
    )


def _clustered_ci(numerators, denominators, correct, *, iterations, confidence, min_sample, seed):
    """The interval of Σnumerators / Σdenominators resampling items: a cluster bootstrap, or the
    normal approximation of a ratio estimator for many items; `correct` maps ratios."""
    check_iterations(iterations)
    check_confidence(confidence)
    numerators, denominators = _paired_arrays(numerators, denominators)
    if denominators.sum() == 0 or denominators.sum() < min_sample:
        return None
    if denominators.size > CLUSTER_BOOTSTRAP_MAX_ITEMS:
        normal = np.array(_ratio_normal(numerators, denominators, confidence))
        low, high = np.sort(correct(normal))
        return float(low), float(high)
    ratios = _resampled_ratios(numerators, denominators, iterations, seed)
    return percentile_bounds(correct(ratios), confidence)


def _paired_arrays(numerators, denominators) -> tuple[np.ndarray, np.ndarray]:
    top, bottom = np.asarray(numerators, dtype=float), np.asarray(denominators, dtype=float)
    keep = bottom > 0
    return top[keep], bottom[keep]


def _resampled_ratios(top: np.ndarray, bottom: np.ndarray, iterations: int, seed) -> np.ndarray:
    """Σtop / Σbottom over B resamples of the items, in memory-bounded blocks."""
    rng, n = np.random.default_rng(seed), top.size
    ratios = np.empty(iterations)
    rows = max(1, BLOCK_ELEMENTS // n)
    for start in range(0, iterations, rows):
        count = min(rows, iterations - start)
        picks = rng.integers(0, n, (count, n))
        ratios[start : start + count] = top[picks].sum(axis=1) / bottom[picks].sum(axis=1)
    return ratios


def _ratio_normal(top: np.ndarray, bottom: np.ndarray, confidence: float) -> tuple[float, float]:
    """The ratio estimate ± z × its cluster-robust standard error."""
    n, ratio = top.size, top.sum() / bottom.sum()
    residuals = top - ratio * bottom
    variance = n / (n - 1) * float((residuals**2).sum()) / float(bottom.sum()) ** 2 if n > 1 else 0
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    half = z * variance**0.5
    return float(ratio - half), float(ratio + half)


def repetition_summary(
    items: Sequence[Hashable],
    verdicts: Sequence[str],
    scores: Sequence[float | None],
    *,
    k: int,
) -> dict:
    """Per-item numbers of a run with k repetitions: pass@k, pass^k, the mean over items of
    their pass share and of their mean score."""
    index, distinct = first_seen_index(items)
    codes = verdict_codes(verdicts)
    totals = item_totals(index, len(distinct), codes, np.asarray(scores, dtype=float))
    return repetition_summary_of(totals, k=k)


@dataclass(frozen=True)
class ItemTotals:
    """Rows counted per item (arrays in the items' first-seen order)."""

    rows: np.ndarray
    decided: np.ndarray  # pass or fail
    passes: np.ndarray
    fails: np.ndarray
    sums: np.ndarray  # of the scores, added in row order
    scored: np.ndarray  # rows with a score


def item_totals(items: np.ndarray, count: int, codes: np.ndarray, scores: np.ndarray) -> ItemTotals:
    """Per-item totals of rows given as each row's item index (`count` items), verdict code
    (0 pass, 1 fail, 2 unknown) and score (NaN: none)."""
    scored = ~np.isnan(scores)

    def tally(mask: np.ndarray) -> np.ndarray:
        return np.bincount(items[mask], minlength=count)

    return ItemTotals(
        rows=np.bincount(items, minlength=count),
        decided=tally(codes != 2),
        passes=tally(codes == 0),
        fails=tally(codes == 1),
        # bincount adds each bin's weights in row order, as a running sum per item would
        sums=np.bincount(items[scored], weights=scores[scored], minlength=count),
        scored=tally(scored),
    )


def repetition_summary_of(totals: ItemTotals, *, k: int) -> dict:
    """pass@k (items where a decided repetition passed), pass^k (items whose k repetitions
    all passed), and the means over items of their pass share and of their mean score."""
    decided = totals.decided > 0
    complete = (totals.decided == k) & (totals.rows == k)
    shares = totals.passes[decided] / totals.decided[decided]
    scored = totals.scored > 0
    means = totals.sums[scored] / totals.scored[scored]
    any_pass = int((totals.passes[decided] > 0).sum())
    all_pass = int((totals.passes[complete] == k).sum())
    return {
        "k": k,
        "items": int(totals.rows.size),
        "pass_at_k": any_pass / int(decided.sum()) if decided.any() else None,
        "pass_at_k_items": int(decided.sum()),
        "pass_all_k": all_pass / int(complete.sum()) if complete.any() else None,
        "pass_all_k_items": int(complete.sum()),
        "item_pass_share_mean": float(np.mean(shares)) if shares.size else None,
        "item_mean_score": float(np.mean(means)) if means.size else None,
    }
