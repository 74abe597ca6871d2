"""Agreement between human reviewers: Krippendorff's alpha, its bootstrap interval over items,
Cohen's kappa for every pair of reviewers and alpha with each reviewer left out.

Input is one mapping per item, reviewer → label. A label that is None or NaN, or a reviewer
absent from an item, is missing: unknown and skipped labels never count. Alpha follows
Krippendorff, "Computing Krippendorff's Alpha-Reliability" (2011): the coincidence matrix of the
pairable values (items with at least two labels; an item with one label is dropped), and
alpha = 1 - D_o / D_e with the level's difference function — nominal (equal or not), ordinal
(the distance between the values' mid-ranks in the pooled values) or interval (the squared
difference). Where D_e = 0 (one value everywhere, or nothing pairable) alpha is undefined: None.

Everything an alpha needs adds up over items, so each item becomes a row of totals; identical
rows are grouped, and a bootstrap resample of the items is one multinomial draw over the groups
(identical in distribution to resampling items, as the pairwise win rate's interval).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from .bootstrap import check_confidence, check_iterations, percentile_bounds

LEVELS = ("nominal", "ordinal", "interval")
# Resample blocks hold at most this many group counts (32 MB of int64), as clustered.py.
BLOCK_ELEMENTS = 1 << 22
MISSING = -1
# A multinomial draw costs about one binomial per group and resample, drawing items one sum
# per item and column; a binomial costs about as much as this many such sums (measured). When
# almost every item is a group of its own (interval labels that all differ) items are drawn.
BINOMIAL_COST = 20
ROUNDING_SHARE = 1e-12

Label = Hashable
Item = Mapping[Hashable, Label | None]


@dataclass(frozen=True)
class ReliabilityData:
    """Items × reviewers as value codes: ``codes[r, u]`` indexes ``values`` (-1: missing).

    ``reviewers`` in first-seen order; ``values`` sorted (by ``order`` for ordinal labels
    given one, by value otherwise; nominal labels by their repr, only to be canonical)."""

    level: str
    reviewers: list[Hashable]
    values: list[Label]
    codes: np.ndarray


@dataclass(frozen=True)
class PairKappa:
    """Cohen's kappa of two reviewers over the ``items`` both labelled (None: undefined)."""

    first: Hashable
    second: Hashable
    items: int
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class Agreement:
    """Everything the agreement of a set of reviews says.

    ``units`` are the items with at least two labels (the pairable ones), ``dropped`` those
    with one; ``labels`` the pairable labels. ``ci`` is a seeded percentile bootstrap over items
    (None when alpha is undefined). ``without`` is alpha with each reviewer left out."""

    level: str
    alpha: float | None
    ci: tuple[float, float] | None
    confidence: float
    resamples: int
    units: int
    dropped: int
    labels: int
    reviewers: list[Hashable]
    pairs: list[PairKappa]
    without: dict[Hashable, float | None]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: reviewers keep their order in lists, never as object keys."""
        return {
            "level": self.level,
            "alpha": self.alpha,
            "ci": list(self.ci) if self.ci else None,
            "confidence": self.confidence,
            "resamples": self.resamples,
            "units": self.units,
            "dropped": self.dropped,
            "labels": self.labels,
            "reviewers": list(self.reviewers),
            "pairs": [vars(pair) for pair in self.pairs],
            "without": [{"reviewer": r, "alpha": a} for r, a in self.without.items()],
        }


def reviewer_agreement(
    items: Sequence[Item],
    *,
    level: str,
    order: Sequence[Label] | None = None,
    iterations: int = 10_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> Agreement:
    """Alpha with its interval, every pair's kappa and alpha without each reviewer."""
    data = _checked_data(items, level, order, iterations, confidence)
    alpha, ci = _alpha_and_interval(data, iterations, confidence, seed)
    labelled = (data.codes != MISSING).sum(axis=0)
    return Agreement(
        level=data.level,
        alpha=alpha,
        ci=ci,
        confidence=confidence,
        resamples=iterations,
        units=int((labelled >= 2).sum()),
        dropped=int((labelled == 1).sum()),
        labels=int(labelled[labelled >= 2].sum()),
        reviewers=data.reviewers,
        pairs=pairwise_kappas(data),
        without=alpha_without_each(data),
    )


def krippendorff_alpha(
    items: Sequence[Item], *, level: str, order: Sequence[Label] | None = None
) -> float | None:
    """Krippendorff's alpha of the items' labels at ``level``; None where undefined."""
    return alpha_of_codes(reliability_data(items, level=level, order=order))


def alpha_interval(
    items: Sequence[Item],
    *,
    level: str,
    order: Sequence[Label] | None = None,
    iterations: int = 10_000,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of alpha, items resampled; None when alpha is undefined."""
    data = _checked_data(items, level, order, iterations, confidence)
    return _alpha_and_interval(data, iterations, confidence, seed)[1]


def _checked_data(items, level, order, iterations: int, confidence: float) -> ReliabilityData:
    """The items' reliability matrix, once the bootstrap's settings are known to be sound."""
    check_iterations(iterations)
    check_confidence(confidence)
    return reliability_data(items, level=level, order=order)


def _alpha_and_interval(
    data: ReliabilityData, iterations: int, confidence: float, seed: int | None
) -> tuple[float | None, tuple[float, float] | None]:
    """Alpha and its bootstrap interval over the items; (None, None) where alpha is undefined."""
    groups, weights = item_groups(data.codes, data.level, data.values)
    alpha = alpha_of_groups(groups, weights, data.level)
    if alpha is None:
        return None, None
    return alpha, bootstrap_alpha(groups, weights, data.level, iterations, confidence, seed)


# --- the reliability matrix ------------------------------------------------------------------


def reliability_data(
    items: Sequence[Item], *, level: str, order: Sequence[Label] | None = None
) -> ReliabilityData:
    """Per-item labels as a code matrix; missing labels (None, NaN) dropped."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if order is not None and level != "ordinal":
        raise ValueError("an order is for ordinal labels only")
    present = [{r: x for r, x in item.items() if not _missing(x)} for item in items]
    reviewers = list(dict.fromkeys(r for item in present for r in item))
    values = _sorted_values({x for item in present for x in item.values()}, level, order)
    row, column = {r: i for i, r in enumerate(reviewers)}, {x: i for i, x in enumerate(values)}
    codes = np.full((len(reviewers), len(present)), MISSING, dtype=np.intp)
    for u, item in enumerate(present):
        for reviewer, label in item.items():
            codes[row[reviewer], u] = column[label]
    return ReliabilityData(level=level, reviewers=reviewers, values=values, codes=codes)


def _missing(label: Label | None) -> bool:
    return label is None or (isinstance(label, float | np.floating) and math.isnan(label))


def _sorted_values(labels: set, level: str, order: Sequence[Label] | None) -> list[Label]:
    """The distinct labels in the level's order (interval labels must be numbers)."""
    if level == "interval" and not all(_is_number(x) for x in labels):
        raise ValueError("interval labels must be finite numbers")
    if order is not None:
        rank = {label: i for i, label in enumerate(order)}
        if unknown := labels - set(rank):
            raise ValueError(f"labels outside the order: {sorted(map(repr, unknown))}")
        return sorted(labels, key=rank.__getitem__)
    # nominal labels have no order; sorting by repr only makes the groups (and a seeded
    # interval) independent of the order the items arrive in
    return sorted(labels, key=repr) if level == "nominal" else sorted(labels)


def _is_number(label: Label) -> bool:
    """A finite real number (a boolean is nominal)."""
    numeric = isinstance(label, int | float | np.integer | np.floating)
    return numeric and not isinstance(label, bool) and math.isfinite(label)


# --- alpha from per-item totals --------------------------------------------------------------


def item_groups(
    codes: np.ndarray, level: str, values: Sequence[Label]
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of per-item totals (pairable items only) and how many items have each.

    An item is its labels sorted (missing last), so items with the same labels form one group
    whatever the reviewers; groups come sorted, so their order does not depend on the items'.
    """
    width = len(values)
    sorted_codes = np.sort(np.where(codes == MISSING, width, codes), axis=0).T
    pairable = sorted_codes[(sorted_codes < width).sum(axis=1) >= 2]
    if pairable.size == 0:
        return np.zeros((0, 0)), np.zeros(0)
    patterns, weights = np.unique(pairable, axis=0, return_counts=True)
    return _totals(patterns, level, values), weights.astype(float)


def _totals(patterns: np.ndarray, level: str, values: Sequence[Label]) -> np.ndarray:
    """Per-item totals that add up to an alpha: value counts and the item's disagreement
    (nominal), its coincidences (ordinal: mid-ranks depend on all items) or moments
    (interval)."""
    if level == "interval":
        return _interval_totals(patterns, np.asarray(values, dtype=float))
    width = len(values)
    offsets = np.arange(patterns.shape[0])[:, None] * (width + 1)
    counts = np.bincount((patterns + offsets).ravel(), minlength=patterns.shape[0] * (width + 1))
    counts = counts.reshape(-1, width + 1)[:, :width].astype(float)
    m = counts.sum(axis=1)
    if level == "nominal":
        return np.column_stack([counts, (m**2 - (counts**2).sum(axis=1)) / (m - 1)])
    pairs = counts[:, :, None] * counts[:, None, :]
    pairs[:, np.arange(width), np.arange(width)] -= counts
    return (pairs / (m - 1)[:, None, None]).reshape(len(m), -1)


def _interval_totals(patterns: np.ndarray, values: np.ndarray) -> np.ndarray:
    """m, Σx, Σx² and Σ over the item's ordered pairs of (x - x')² / (m - 1) = 2m Σ(x - x̄)² /
    (m - 1), from the item's own labels (never a column per distinct value: interval labels
    can all differ). x is centred on the values' mean: alpha does not move, the sums round
    less."""
    x = np.append(values - values.mean(), np.nan)[patterns]
    m = (~np.isnan(x)).sum(axis=1).astype(float)
    s1, s2 = np.nansum(x, axis=1), np.nansum(x**2, axis=1)
    spread = np.nansum((x - (s1 / m)[:, None]) ** 2, axis=1)
    return np.column_stack([m, s1, s2, 2 * m * spread / (m - 1)])


def alphas_of_totals(totals: np.ndarray, level: str, width: int) -> np.ndarray:
    """Alpha = 1 - (n - 1) Σ o·δ / Σ n_c n_k δ for each row of summed totals (NaN: D_e = 0)."""
    if level == "nominal":
        counts, observed = totals[:, :width], totals[:, width]
        n = counts.sum(axis=1)
        expected = n**2 - (counts**2).sum(axis=1)
    elif level == "ordinal":
        coincidences = totals.reshape(-1, width, width)
        counts = coincidences.sum(axis=2)
        n = counts.sum(axis=1)
        ranks = np.cumsum(counts, axis=1) - counts / 2  # mid-ranks of the pooled values
        delta = (ranks[:, :, None] - ranks[:, None, :]) ** 2
        observed = (coincidences * delta).sum(axis=(1, 2))
        expected = np.einsum("bc,bk,bck->b", counts, counts, delta)
    else:
        n, s1, s2, observed = totals.T
        expected = 2 * (n * s2 - s1**2)
        # Labels all equal in a resample leave rounding dust here, not 0 (their centred value
        # is not exact): below this share of n·Σx² there is no spread, alpha is undefined.
        expected = np.where(expected > ROUNDING_SHARE * n * s2, expected, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected > 0, 1 - (n - 1) * observed / expected, np.nan)


def alpha_of_groups(groups: np.ndarray, weights: np.ndarray, level: str) -> float | None:
    """Alpha of the observed items (each group counted as often as it occurs)."""
    if weights.size == 0:
        return None
    alpha = alphas_of_totals((weights @ groups)[None, :], level, _width(groups, level))[0]
    return None if np.isnan(alpha) else float(alpha)


def _width(groups: np.ndarray, level: str) -> int:
    """How many distinct values the totals' columns describe."""
    if level == "nominal":
        return groups.shape[1] - 1
    return math.isqrt(groups.shape[1]) if level == "ordinal" else 0


def alpha_of_codes(data: ReliabilityData) -> float | None:
    """Alpha of a code matrix (any subset of its reviewers)."""
    groups, weights = item_groups(data.codes, data.level, data.values)
    return alpha_of_groups(groups, weights, data.level)


# --- the bootstrap ---------------------------------------------------------------------------


def bootstrap_alpha(
    groups: np.ndarray,
    weights: np.ndarray,
    level: str,
    iterations: int,
    confidence: float,
    seed: int | None,
) -> tuple[float, float] | None:
    """Percentile bounds of alpha over ``iterations`` resamples of the items.

    A resample of the n pairable items is one multinomial draw of how often each group occurs,
    or n items drawn with replacement when there are nearly as many groups as items (the same
    distribution; whichever is cheaper, see BINOMIAL_COST).
    A resample where alpha is undefined (every resampled label the same) is left out; with no
    resample left there is no interval."""
    alphas = resampled_alphas(groups, weights, level, iterations, np.random.default_rng(seed))
    alphas = alphas[~np.isnan(alphas)]
    return percentile_bounds(alphas, confidence) if alphas.size else None


def resampled_alphas(
    groups: np.ndarray, weights: np.ndarray, level: str, iterations: int, rng: np.random.Generator
) -> np.ndarray:
    """Alphas of resampled items, drawn in memory-bounded blocks."""
    n, width = int(weights.sum()), _width(groups, level)
    draw_items = groups.shape[0] * BINOMIAL_COST > n * groups.shape[1]
    rows = max(1, BLOCK_ELEMENTS // max(n if draw_items else groups.shape[0], groups.shape[1]))
    expanded = np.repeat(groups, weights.astype(np.intp), axis=0) if draw_items else None
    alphas = np.empty(iterations)
    for start in range(0, iterations, rows):
        count = min(rows, iterations - start)
        if expanded is None:
            totals = rng.multinomial(n, weights / n, size=count).astype(float) @ groups
        else:
            totals = _summed_draws(expanded, rng.integers(0, n, (count, n)))
        alphas[start : start + count] = alphas_of_totals(totals, level, width)
    return alphas


def _summed_draws(expanded: np.ndarray, picks: np.ndarray) -> np.ndarray:
    """Each resample's totals: the picked items' rows summed, a column at a time (a 2-D
    gather per column is several times faster than one 3-D gather)."""
    return np.column_stack([column[picks].sum(axis=1) for column in expanded.T])


# --- reviewers -------------------------------------------------------------------------------


def alpha_without_each(data: ReliabilityData) -> dict[Hashable, float | None]:
    """Reviewer → alpha of everyone else's labels (an outlier raises it when left out)."""
    without = {}
    for r, reviewer in enumerate(data.reviewers):
        others = np.delete(data.codes, r, axis=0)
        without[reviewer] = alpha_of_codes(
            ReliabilityData(data.level, data.reviewers, data.values, others)
        )
    return without


def pairwise_kappas(data: ReliabilityData) -> list[PairKappa]:
    """Cohen's kappa for every pair of reviewers, over the items both labelled.

    Unweighted at every level: kappa asks whether two reviewers gave the same label; how far
    apart they were is alpha's business (ordinal and interval)."""
    pairs = []
    for a, b in combinations(range(len(data.reviewers)), 2):
        first, second = data.codes[a], data.codes[b]
        both = (first != MISSING) & (second != MISSING)
        observed, expected = _chance(first[both], second[both], len(data.values))
        pairs.append(
            PairKappa(
                first=data.reviewers[a],
                second=data.reviewers[b],
                items=int(both.sum()),
                agreement=observed,
                kappa=kappa_of(observed, expected),
            )
        )
    return pairs


def _chance(first: np.ndarray, second: np.ndarray, width: int) -> tuple[float | None, float]:
    """Observed agreement of two raters' codes and the agreement their margins expect — from
    the margins alone, never a width × width table (interval labels can all differ)."""
    if first.size == 0:
        return None, 0.0
    margins = np.bincount(first, minlength=width) @ np.bincount(second, minlength=width)
    return float(np.mean(first == second)), float(margins) / first.size**2


def cohen_kappa(table: np.ndarray | Sequence[Sequence[int]]) -> float | None:
    """Cohen's kappa of a square table of counts (rows: one rater's labels, columns: the
    other's); None with no items or where undefined (see `kappa_of`)."""
    counts = np.asarray(table, dtype=float)
    n = counts.sum()
    if n == 0:
        return None
    expected = float(counts.sum(axis=1) @ counts.sum(axis=0)) / (n * n)
    return kappa_of(float(np.trace(counts) / n), expected)


def kappa_of(observed: float | None, expected: float) -> float | None:
    """(p_o - p_e) / (1 - p_e); None without items or when p_e = 1 (both raters gave one and
    the same label throughout: chance explains everything, kappa is 0 / 0)."""
    if observed is None or expected == 1:
        return None
    return (observed - expected) / (1 - expected)
