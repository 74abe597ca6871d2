"""The win rate of B (candidate) over A (baseline): ties split or excluded, a seeded bootstrap
interval (clustered by item when items repeat) and the exact sign test."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..bootstrap import check_confidence, check_iterations, percentile_bounds
from ..clustered import clustered_rate_ci
from ..compare import SIGNIFICANCE
from .common import TIE, TIES_MODES, UNKNOWN, A, B, lists, parse_answer

# What `win_rate` concludes, for the caller to phrase (cf. compare's "better"/"worse").
B_BETTER, A_BETTER = "b_better", "a_better"
NO_DIFFERENCE, NOTHING_TO_COMPARE = "no_detectable_difference", "nothing_to_compare"


@dataclass(frozen=True)
class WinRate:
    """B (candidate) against A (baseline) over pairs with a known outcome.

    ``rate`` is B's share of the ``n`` pairs it is over: with ``ties_mode`` "split" a tie is
    half a win to each side (n = wins + losses + ties), with "exclude" ties are left out
    (n = wins_b + wins_a). ``items`` is the number of distinct items among those n pairs (None
    for bare outcomes); ``clustered`` when fewer items than pairs, i.e. items repeat. ``ci`` is a
    seeded percentile bootstrap over pairs — over items, all of an item's pairs together, when
    clustered — and None below ``min_sample``.
    ``sign_test_p`` is the two-sided exact sign test of B's wins against A's, ties excluded;
    with repetitions its unit is the item (each item's majority, ``sign_test_unit``), because
    repetitions of one item are not independent evidence. ``words`` is a code: "b_better" /
    "a_better" (p < 0.05 and the CI, when there is one, clear of 0.5),
    "no_detectable_difference" or "nothing_to_compare".
    """

    wins_b: int
    wins_a: int
    ties: int
    unknown: int
    n: int
    ties_mode: str
    rate: float | None
    ci: tuple[float, float] | None
    confidence: float
    resamples: int
    items: int | None
    clustered: bool
    sign_test_unit: str
    sign_test_wins_b: int
    sign_test_wins_a: int
    sign_test_p: float
    words: str

    def to_dict(self) -> dict[str, Any]:
        return lists(asdict(self), ("ci",))


def win_rate(
    outcomes: Iterable[str | tuple[Hashable, str]],
    *,
    ties: str = "split",
    confidence: float = 0.95,
    resamples: int = 10_000,
    min_sample: int = 30,
    seed: int | None = 0,
) -> WinRate:
    """Win rate of B over A from pair outcomes ("A", "B", "tie"; anything else is unknown).

    ``outcomes`` are either bare outcomes or (item, outcome) tuples, all one way; with items
    that repeat, the CI resamples items and the sign test counts items.
    """
    if ties not in TIES_MODES:
        raise ValueError(f"ties must be one of {TIES_MODES}, got {ties!r}")
    check_iterations(resamples)
    check_confidence(confidence)
    items, labels = _split_outcomes(outcomes)
    known = labels != UNKNOWN
    counted = known & (labels != TIE) if ties == "exclude" else known
    wins_b, wins_a = int(np.count_nonzero(labels == B)), int(np.count_nonzero(labels == A))
    tie_count = int(np.count_nonzero(labels == TIE))
    n = int(np.count_nonzero(counted))
    rate = None
    if n:
        rate = (wins_b + (0.5 * tie_count if ties == "split" else 0)) / n
    groups = None if items is None else _item_tallies(items[counted], labels[counted])
    clustered = groups is not None and len(groups) < n
    if clustered:
        hits = [b + 0.5 * t if ties == "split" else b for b, _a, t in groups.values()]
        trials = [b + a + (t if ties == "split" else 0) for b, a, t in groups.values()]
        ci = clustered_rate_ci(
            hits,
            trials,
            iterations=resamples,
            confidence=confidence,
            min_sample=min_sample,
            seed=seed,
        )
        test_b = sum(b > a for b, a, _t in groups.values())
        test_a = sum(a > b for b, a, _t in groups.values())
    else:
        ci = None
        if n and n >= min_sample:
            ci = _pair_bootstrap(wins_b, wins_a, tie_count, ties, resamples, confidence, seed)
        test_b, test_a = wins_b, wins_a
    p_value = sign_test(test_b, test_a)
    return WinRate(
        wins_b=wins_b,
        wins_a=wins_a,
        ties=tie_count,
        unknown=int(labels.size - np.count_nonzero(known)),
        n=n,
        ties_mode=ties,
        rate=rate,
        ci=ci,
        confidence=confidence,
        resamples=resamples,
        items=None if groups is None else len(groups),
        clustered=clustered,
        sign_test_unit="item" if clustered else "pair",
        sign_test_wins_b=test_b,
        sign_test_wins_a=test_a,
        sign_test_p=p_value,
        words=_words(rate, ci, p_value),
    )


def sign_test(wins_b: int, wins_a: int) -> float:
    """Two-sided exact sign test (binomial, p = 0.5) of wins against losses; 1.0 with neither."""
    # scipy loads on first use: imported with the module it costs every process ~76 MB
    from scipy import stats as scipy_stats

    if wins_b + wins_a == 0:
        return 1.0
    return float(scipy_stats.binomtest(wins_b, wins_b + wins_a, 0.5).pvalue)


def _split_outcomes(outcomes) -> tuple[np.ndarray | None, np.ndarray]:
    """(items or None, normalised outcome labels) as object/str arrays."""
    rows = list(outcomes)
    keyed = [isinstance(row, tuple | list) for row in rows]
    if any(keyed) and not all(keyed):
        raise ValueError("outcomes are all bare or all (item, outcome) tuples, not a mix")
    if rows and all(keyed):
        if any(len(row) != 2 for row in rows):
            raise ValueError("a keyed outcome is an (item, outcome) tuple")
        items = np.fromiter((row[0] for row in rows), dtype=object, count=len(rows))
        raw = [row[1] for row in rows]
    else:
        items, raw = None, rows
    labels = np.array([parse_answer(label) or UNKNOWN for label in raw], dtype=object)
    return items, labels


def _item_tallies(items: np.ndarray, labels: np.ndarray) -> dict[Hashable, list[int]]:
    """item → [B wins, A wins, ties] over the counted outcomes, in first-seen order."""
    tallies: dict[Hashable, list[int]] = {}
    column = {B: 0, A: 1, TIE: 2}
    for item, label in zip(items, labels, strict=True):
        tallies.setdefault(item, [0, 0, 0])[column[label]] += 1
    return tallies


def _pair_bootstrap(wins_b, wins_a, ties, mode, resamples, confidence, seed):
    """Percentile bootstrap over independent pairs. A resample of n pairs is one multinomial
    draw over the three outcomes (a binomial when ties are excluded): O(B), and identical in
    distribution to resampling the pairs themselves, as compare's paired CI does."""
    rng = np.random.default_rng(seed)
    if mode == "exclude":
        n = wins_b + wins_a
        rates = rng.binomial(n, wins_b / n, size=resamples) / n
    else:
        n = wins_b + wins_a + ties
        draws = rng.multinomial(n, [wins_b / n, wins_a / n, ties / n], size=resamples)
        rates = (draws[:, 0] + 0.5 * draws[:, 2]) / n
    return percentile_bounds(rates, confidence)


def _words(rate, ci, p_value) -> str:
    """Better needs the exact test and the interval (when there is one) to agree, as compare."""
    if rate is None:
        return NOTHING_TO_COMPARE
    if p_value < SIGNIFICANCE and rate > 0.5 and (ci is None or ci[0] > 0.5):
        return B_BETTER
    if p_value < SIGNIFICANCE and rate < 0.5 and (ci is None or ci[1] < 0.5):
        return A_BETTER
    return NO_DIFFERENCE
