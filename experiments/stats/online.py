"""Rates of live traffic: a window's fail rate from sampled, judged items, honest about how it
was sampled and about the judge's own error.

A window is made of **strata**, one per sampling rate in force (a budget can lower the rate
mid-window): each stratum knows how many items arrived (`volume`, every item is counted, sampled
or not) and how many of its sampled items the judge decided fail or pass. The window's rate is
the volume-weighted mean of the strata's rates, so traffic judged at 10 % in the morning and at
5 % after a budget cut weighs by how much traffic there was, never by how much was judged.

Intervals come from one simulation: each stratum's rate is drawn from its Jeffreys posterior
Beta(fails + ½, passes + ½) (with one stratum this is the Jeffreys interval), and, for the
calibrated rate, the judge's sensitivity and specificity from theirs (Beta(tp + ½, fn + ½),
Beta(tn + ½, fp + ½)), each draw corrected by Rogan–Gladen; the percentile bounds then hold the
calibration's uncertainty as well as the traffic's. A fail is the positive class, as in
`experiments.results.calibration`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from .bootstrap import (
    MIN_CORRECTION_DENOMINATOR,
    SeedLike,
    check_confidence,
    check_count,
    check_iterations,
    percentile_bounds,
)

JEFFREYS = 0.5
DRAWS = 10_000


@dataclass(frozen=True)
class Stratum:
    """Items that arrived under one sampling rate, and what the judge decided of those sampled."""

    volume: int
    fails: int
    passes: int

    @property
    def decided(self) -> int:
        return self.fails + self.passes


@dataclass(frozen=True)
class Calibration:
    """The judge against human labels: a fail is the positive class."""

    tp: int
    fn: int
    tn: int
    fp: int

    @property
    def sensitivity(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    @property
    def specificity(self) -> float | None:
        return self.tn / (self.tn + self.fp) if self.tn + self.fp else None


@dataclass(frozen=True)
class WindowRate:
    """A fail rate and its interval; `decided` is the denominator a page prints beside it."""

    rate: float
    lower: float
    upper: float
    decided: int


def window_fail_rate(
    strata: Sequence[Stratum],
    *,
    calibration: Calibration | None = None,
    confidence: float = 0.95,
    draws: int = DRAWS,
    seed: SeedLike = None,
) -> WindowRate | None:
    """The window's fail rate (corrected for the judge when `calibration` is given) with its
    interval; None when nothing was decided or the calibration cannot correct (a side with no
    labels, or Se + Sp - 1 too close to 0)."""
    _check(strata, calibration, confidence, draws)
    kept = [s for s in strata if s.decided]
    if not kept or (calibration is not None and not _correctable(calibration)):
        return None
    weights = _weights(kept)
    rng = np.random.default_rng(seed)
    rates = _stratified_draws(kept, weights, rng, draws)
    point = float(sum(w * s.fails / s.decided for w, s in zip(weights, kept, strict=True)))
    if calibration is not None:
        rates = _corrected_draws(rates, calibration, rng)
        point = _corrected_point(point, calibration)
    lower, upper = percentile_bounds(rates, confidence)
    return WindowRate(point, lower, upper, sum(s.decided for s in kept))


def rate_change_p_value(baseline: WindowRate, current: WindowRate, confidence: float) -> float:
    """Two-sided p-value that two windows' rates differ (a Wald test on the two estimates,
    each's standard error read from its interval's width), for a change marker."""
    z_crit = _z(confidence)
    se = math.hypot(*((w.upper - w.lower) / (2 * z_crit) for w in (baseline, current)))
    if se == 0:
        return 1.0 if baseline.rate == current.rate else 0.0
    return 2 * (1 - NormalDist().cdf(abs(current.rate - baseline.rate) / se))


def _weights(strata: Sequence[Stratum]) -> np.ndarray:
    """Each stratum's share of the traffic (strata with nothing decided were dropped before)."""
    volumes = np.array([max(s.volume, s.decided) for s in strata], dtype=float)
    return volumes / volumes.sum()


def _stratified_draws(strata, weights, rng: np.random.Generator, draws: int) -> np.ndarray:
    total = np.zeros(draws)
    for weight, stratum in zip(weights, strata, strict=True):
        total += weight * rng.beta(stratum.fails + JEFFREYS, stratum.passes + JEFFREYS, draws)
    return total


def _corrected_draws(rates: np.ndarray, calibration: Calibration, rng) -> np.ndarray:
    """Each draw corrected with its own draw of the judge's Se and Sp. A draw where Se + Sp - 1
    is near 0 or below (a judge no better than chance) says nothing about the rate: it is
    replaced by a uniform draw over [0, 1], which widens the interval instead of hiding it."""
    draws = rates.size
    sensitivity = rng.beta(calibration.tp + JEFFREYS, calibration.fn + JEFFREYS, draws)
    specificity = rng.beta(calibration.tn + JEFFREYS, calibration.fp + JEFFREYS, draws)
    denominator = sensitivity + specificity - 1.0
    informative = denominator >= MIN_CORRECTION_DENOMINATOR
    corrected = (rates + specificity - 1.0) / np.where(informative, denominator, 1.0)
    corrected = np.where(informative, corrected, rng.uniform(size=draws))
    return np.clip(corrected, 0.0, 1.0)


def _corrected_point(rate: float, calibration: Calibration) -> float:
    """Rogan–Gladen on the point estimate, clipped to [0, 1]."""
    se, sp = calibration.sensitivity, calibration.specificity
    return min(1.0, max(0.0, (rate + sp - 1.0) / (se + sp - 1.0)))


def _correctable(calibration: Calibration) -> bool:
    se, sp = calibration.sensitivity, calibration.specificity
    return se is not None and sp is not None and se + sp - 1.0 >= MIN_CORRECTION_DENOMINATOR


def _check(strata, calibration, confidence: float, draws: int) -> None:
    check_confidence(confidence)
    check_iterations(draws)
    for stratum in strata:
        for name in ("volume", "fails", "passes"):
            check_count(name, getattr(stratum, name))
    if calibration is not None:
        for name in ("tp", "fn", "tn", "fp"):
            check_count(name, getattr(calibration, name))


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)
