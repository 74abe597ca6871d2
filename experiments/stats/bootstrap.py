"""Bootstrap confidence intervals: the fail rate (garak-compatible) and the mean score.

Fail-rate CI, default mode: the fail count of a resample of n binary outcomes with replacement is
Binomial(n, fails / n), so the B resampled counts are drawn directly — O(B) whatever n is, and
statistically identical to resampling rows. ``exact_garak=True`` instead replays garak's own
procedure on ``numpy.random.RandomState(seed)`` so a seeded run gives garak's bounds bit for bit.
The mean score's bootstrap resamples rows; when the scores take few distinct values (a pass/fail
check's 0 and 1, a judge's 0, 0.5 and 1) the same holds per value: a resample's mean depends
only on how often it drew each value, and those counts are Multinomial(n, share of each value),
drawn directly in O(B·K).
Every resampled fail rate goes through the Rogan–Gladen correction for the judge's sensitivity
and specificity, then the percentile method (numpy's default linear interpolation) gives bounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np

# Exact mode draws index blocks of at most this many int64s (~32 MB) instead of B x n at once.
EXACT_BLOCK_ELEMENTS = 1 << 22
# The mean bootstrap draws row indices in blocks of about this many int64s (1 MB): blocks that
# stay in cache and reuse freed memory take 0.07 s, not 0.11-0.20 s, for 10,000 resamples of
# 2,000 rows. The generator's stream does not depend on how the draws are split, so the means
# are the same to the last bit whatever the block size.
MEAN_BLOCK_ELEMENTS = 1 << 17
# Scores with at most this many distinct values resample their value counts (a multinomial
# draw per resample, O(K)) instead of n row indices: 10,000 resamples of 2,000 judge scores
# take ~2 ms instead of ~70 ms, the last step of every finishing run.
FEW_DISTINCT = 32
# Above this many rows mean_ci switches from resampling rows to the normal approximation.
MEAN_CI_BOOTSTRAP_MAX_N = 2_000
# Below this |Se + Sp - 1| the correction is numerically meaningless; garak falls back too.
MIN_CORRECTION_DENOMINATOR = 0.01

SeedLike = int | np.random.Generator | None


def bootstrap_ci(
    fails: int,
    passes: int,
    *,
    sensitivity: float = 1.0,
    specificity: float = 1.0,
    iterations: int = 10_000,
    confidence: float = 0.95,
    min_sample: int = 30,
    seed: int | None = None,
    exact_garak: bool = False,
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the FAIL rate, as fractions in [0, 1].

    Returns None when ``fails + passes < min_sample``. ``sensitivity``/``specificity`` are the
    judge's Se/Sp; each resampled rate p becomes ``clip((p + Sp - 1) / (Se + Sp - 1), 0, 1)``
    (no correction when |Se + Sp - 1| < 0.01). ``exact_garak=True`` with a seed reproduces
    garak's bounds bit for bit; the default mode draws binomial fail counts directly (O(B)).
    """
    check_count("fails", fails)
    check_count("passes", passes)
    check_iterations(iterations)
    check_confidence(confidence)
    n = fails + passes
    if n == 0 or n < min_sample:
        return None
    if exact_garak:
        rates = _garak_resampled_rates(fails, n, iterations, seed)
        return _garak_bounds(rates, sensitivity, specificity, confidence)
    else:
        counts = np.random.default_rng(seed).binomial(n, fails / n, size=iterations)
        rates = counts / n
    corrected = rogan_gladen(rates, sensitivity, specificity)
    return percentile_bounds(corrected, confidence)


def rogan_gladen(rates: np.ndarray, sensitivity: float, specificity: float) -> np.ndarray:
    """Correct apparent fail rates for an imperfect judge: clip((p + Sp - 1) / (Se + Sp - 1)).

    Falls back to Se = Sp = 1 when |Se + Sp - 1| < 0.01. The operations run in garak's order,
    ``(p + Sp) - 1`` then ``/ den``, even without correction: ``p + 1.0 - 1.0`` can round, and
    exact mode must round the same way.
    """
    denominator = sensitivity + specificity - 1.0
    if abs(denominator) < MIN_CORRECTION_DENOMINATOR:
        specificity, denominator = 1.0, 1.0
    return np.clip((rates + specificity - 1.0) / denominator, 0.0, 1.0)


def _garak_bounds(
    rates: np.ndarray, sensitivity: float, specificity: float, confidence: float
) -> tuple[float, float]:
    """The bounds as garak 0.17 writes them in its eval record: no correction arithmetic for a
    perfect (or uninformative) judge, and the percentile bounds clipped in percent, then
    divided by 100 — each step rounds, so exact mode takes the same steps."""
    denominator = sensitivity + specificity - 1.0
    if abs(denominator) < MIN_CORRECTION_DENOMINATOR:
        specificity, denominator = 1.0, 1.0
    if not np.isclose(denominator, 1.0):
        rates = np.clip((rates + specificity - 1.0) / denominator, 0.0, 1.0)
    lower, upper = percentile_bounds(rates, confidence)
    return (
        float(np.clip(lower * 100, 0.0, 100.0) / 100),
        float(np.clip(upper * 100, 0.0, 100.0) / 100),
    )


def percentile_bounds(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Two-sided percentile-method bounds with numpy's default (linear) interpolation."""
    alpha = 1.0 - confidence
    # Same expressions as garak so the percentile positions match to the last bit.
    lower, upper = np.percentile(values, [(alpha / 2) * 100, (1 - alpha / 2) * 100])
    return float(lower), float(upper)


def _garak_resampled_rates(fails: int, n: int, iterations: int, seed: int | None) -> np.ndarray:
    """Resampled fail rates exactly as garak draws them, in memory-bounded blocks.

    garak seeds the legacy global generator and calls ``np.random.choice(data, n, replace=True)``
    once per iteration over ``data = [1] * fails + [0] * passes``. ``choice`` with replacement
    draws its indices with ``randint(0, n, n)``, and consecutive ``randint`` calls consume the
    MT19937 stream exactly like one larger call, so row blocks of ``randint(0, n, (rows, n))``
    replay the same indices (tests check this against garak's loop). Index i picks a fail iff
    i < fails, and the mean of 0/1 floats is an exact integer sum divided by n, so counting
    ``idx < fails`` gives the same floats as garak's means.
    """
    state = np.random.RandomState(seed)
    rates = np.empty(iterations)
    rows_per_block = max(1, EXACT_BLOCK_ELEMENTS // n)
    for start in range(0, iterations, rows_per_block):
        rows = min(rows_per_block, iterations - start)
        idx = state.randint(0, n, (rows, n))
        rates[start : start + rows] = np.count_nonzero(idx < fails, axis=1) / n
    return rates


def mean_ci(
    scores: Sequence[float | None] | np.ndarray,
    *,
    iterations: int = 10_000,
    confidence: float = 0.95,
    min_sample: int = 30,
    seed: int | None = None,
) -> tuple[float, float] | None:
    """CI of the mean score over rows; None/NaN scores are ignored.

    Returns None when fewer than ``min_sample`` non-null scores exist. Up to
    ``MEAN_CI_BOOTSTRAP_MAX_N`` (2,000) scores it is a percentile bootstrap resampling rows (in
    memory-bounded blocks); above that it is the normal approximation
    ``mean ± z * std / sqrt(n)`` with the plug-in std (ddof=0, the bootstrap's own variance),
    which at such n agrees with the bootstrap to well under a thousandth and costs O(n).
    """
    check_iterations(iterations)
    check_confidence(confidence)
    values = finite_values(scores)
    if values.size == 0 or values.size < min_sample:
        return None
    return mean_ci_of_values(values, iterations, confidence, np.random.default_rng(seed))


def finite_values(scores: Sequence[float | None] | np.ndarray) -> np.ndarray:
    """Scores as a float array with None/NaN dropped."""
    values = np.asarray(scores, dtype=float).reshape(-1)
    return values[~np.isnan(values)]


def mean_ci_of_values(
    values: np.ndarray, iterations: int, confidence: float, rng: np.random.Generator
) -> tuple[float, float]:
    """Mean CI of non-empty finite values: bootstrap for small n, normal approximation above."""
    if values.size > MEAN_CI_BOOTSTRAP_MAX_N:
        return _normal_mean_ci(values, confidence)
    return percentile_bounds(_bootstrap_means(values, iterations, rng), confidence)


def _bootstrap_means(values: np.ndarray, iterations: int, rng: np.random.Generator) -> np.ndarray:
    """Means of ``iterations`` row resamples: their value counts drawn directly when the
    values are few, else row indices drawn in small blocks (memory and speed)."""
    distinct, counts = np.unique(values, return_counts=True)
    if distinct.size <= FEW_DISTINCT and distinct.size < values.size:
        return _counted_means(distinct, counts, iterations, rng)
    return _indexed_means(values, iterations, rng)


def _counted_means(
    distinct: np.ndarray, counts: np.ndarray, iterations: int, rng: np.random.Generator
) -> np.ndarray:
    """Resample means from Multinomial(n, counts / n) draws of how often each value is
    picked: the same distribution as resampling the n rows themselves."""
    n = int(counts.sum())
    drawn = rng.multinomial(n, counts / n, size=iterations)
    return drawn @ distinct / n


def _indexed_means(values: np.ndarray, iterations: int, rng: np.random.Generator) -> np.ndarray:
    """Resample means from row indices, drawn in blocks of about MEAN_BLOCK_ELEMENTS."""
    n = values.size
    means = np.empty(iterations)
    rows_per_block = max(1, MEAN_BLOCK_ELEMENTS // n)
    for start in range(0, iterations, rows_per_block):
        rows = min(rows_per_block, iterations - start)
        idx = rng.integers(0, n, size=(rows, n))
        means[start : start + rows] = values[idx].mean(axis=1)
    return means


def _normal_mean_ci(values: np.ndarray, confidence: float) -> tuple[float, float]:
    mean = float(values.mean())
    half = NormalDist().inv_cdf((1 + confidence) / 2) * float(values.std()) / math.sqrt(values.size)
    # A resampled mean can never leave the data's range; keep the approximation inside it too.
    low = max(mean - half, float(values.min()))
    high = min(mean + half, float(values.max()))
    return low, high


def check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


def check_iterations(iterations: int) -> None:
    if iterations < 1:
        raise ValueError("iterations must be at least 1")


def check_confidence(confidence: float) -> None:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
