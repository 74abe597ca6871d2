"""Live-traffic rates (experiments/stats/online.py): strata by sampling rate, the judge-corrected
rate and its interval, and the change test between windows, checked against simulated truth."""

import numpy as np
import pytest

from experiments.stats.online import (
    Calibration,
    Stratum,
    WindowRate,
    rate_change_p_value,
    window_fail_rate,
)

SIMULATIONS = 1_000
DRAWS = 2_000


def _observed_fail_probability(truth: float, se: float, sp: float) -> float:
    return se * truth + (1 - sp) * (1 - truth)


def _calibration_sample(rng, se: float, sp: float, positives: int, negatives: int) -> Calibration:
    tp = int(rng.binomial(positives, se))
    tn = int(rng.binomial(negatives, sp))
    return Calibration(tp=tp, fn=positives - tp, tn=tn, fp=negatives - tn)


def _stratum(rng, volume: int, rate: float, fail_probability: float) -> Stratum:
    sampled = int(rng.binomial(volume, rate))
    fails = int(rng.binomial(sampled, fail_probability))
    return Stratum(volume=volume, fails=fails, passes=sampled - fails)


def test_one_stratum_is_the_plain_rate_with_its_denominator():
    window = window_fail_rate([Stratum(volume=1_000, fails=30, passes=70)], seed=1)
    assert window.rate == pytest.approx(0.3)
    assert window.decided == 100
    assert window.lower < 0.3 < window.upper
    # the Jeffreys interval for 30/100 is about [0.217, 0.394]
    assert window.lower == pytest.approx(0.217, abs=0.01)
    assert window.upper == pytest.approx(0.394, abs=0.01)


def test_strata_weigh_by_traffic_not_by_how_much_was_judged():
    # morning: 10,000 spans at 10 %, 10 % fail; afternoon: 10,000 at 1 % after a budget cut, 50 %
    morning = Stratum(volume=10_000, fails=100, passes=900)
    afternoon = Stratum(volume=10_000, fails=50, passes=50)
    window = window_fail_rate([morning, afternoon], seed=2)
    assert window.rate == pytest.approx(0.30)  # pooled counts would say 150 / 1,100 = 0.136
    assert window.decided == 1_100


def test_nothing_decided_and_an_uninformative_judge_give_no_rate():
    assert window_fail_rate([Stratum(volume=50, fails=0, passes=0)]) is None
    chance = Calibration(tp=50, fn=50, tn=50, fp=50)
    assert window_fail_rate([Stratum(100, 10, 90)], calibration=chance) is None
    assert window_fail_rate([Stratum(100, 10, 90)], calibration=Calibration(0, 0, 5, 5)) is None


def test_bad_counts_are_refused_by_name():
    with pytest.raises(ValueError, match="fails"):
        window_fail_rate([Stratum(volume=10, fails=-1, passes=3)])
    with pytest.raises(ValueError, match="fp"):
        window_fail_rate([Stratum(10, 1, 3)], calibration=Calibration(1, 1, 1, -2))


def test_a_perfect_judge_changes_nothing():
    strata = [Stratum(volume=500, fails=40, passes=160)]
    plain = window_fail_rate(strata, seed=3)
    perfect = window_fail_rate(strata, calibration=Calibration(400, 0, 400, 0), seed=3)
    assert perfect.rate == pytest.approx(plain.rate)
    assert perfect.lower == pytest.approx(plain.lower, abs=0.01)
    assert perfect.upper == pytest.approx(plain.upper, abs=0.01)


def test_the_corrected_interval_is_wider_with_a_smaller_calibration():
    strata = [Stratum(volume=5_000, fails=125, passes=375)]
    big = window_fail_rate(strata, calibration=Calibration(850, 150, 900, 100), seed=4)
    small = window_fail_rate(strata, calibration=Calibration(17, 3, 18, 2), seed=4)
    assert big.rate == pytest.approx(small.rate)
    assert (small.upper - small.lower) > 1.5 * (big.upper - big.lower)


def _corrected_coverage(rng, *, include_calibration_uncertainty: bool) -> float:
    truth, se, sp = 0.2, 0.85, 0.9
    observed = _observed_fail_probability(truth, se, sp)
    covered = 0
    for _ in range(SIMULATIONS):
        calibration = _calibration_sample(rng, se, sp, positives=60, negatives=140)
        strata = [_stratum(rng, 5_000, 0.1, observed)]
        if not include_calibration_uncertainty:
            # the naive interval: Rogan–Gladen applied to the plain interval's bounds
            plain = window_fail_rate(strata, draws=DRAWS, seed=rng)
            s, p = calibration.sensitivity, calibration.specificity
            lower, upper = ((b + p - 1) / (s + p - 1) for b in (plain.lower, plain.upper))
        else:
            window = window_fail_rate(strata, calibration=calibration, draws=DRAWS, seed=rng)
            lower, upper = window.lower, window.upper
        covered += lower <= truth <= upper
    return covered / SIMULATIONS


def test_the_corrected_interval_covers_the_truth_at_its_nominal_level():
    """Known Se/Sp, a calibration of 200 labelled items, 500 judged spans: the interval that
    carries the calibration's uncertainty covers the true rate in >= 93 % of 1,000 simulations
    (nominal 95 %); correcting only the traffic's interval falls well short, so the check can
    tell the two apart."""
    rng = np.random.default_rng(20261205)
    assert _corrected_coverage(rng, include_calibration_uncertainty=True) >= 0.93
    assert _corrected_coverage(rng, include_calibration_uncertainty=False) < 0.90


def test_a_window_with_a_budget_cut_covers_the_truth():
    """The rate drops from 20 % to 2 % mid-window while the fail rate moves from 10 % to 40 %:
    the stratified interval covers the traffic's true rate (25 %) at the nominal level, the
    pooled one would not."""
    rng = np.random.default_rng(7)
    covered = pooled_covered = 0
    for _ in range(SIMULATIONS):
        strata = [_stratum(rng, 4_000, 0.2, 0.1), _stratum(rng, 4_000, 0.02, 0.4)]
        window = window_fail_rate(strata, draws=DRAWS, seed=rng)
        covered += window.lower <= 0.25 <= window.upper
        pooled = window_fail_rate([Stratum(8_000, *_pooled(strata))], draws=DRAWS, seed=rng)
        pooled_covered += pooled.lower <= 0.25 <= pooled.upper
    assert covered / SIMULATIONS >= 0.93
    assert pooled_covered / SIMULATIONS < 0.5


def _pooled(strata: list[Stratum]) -> tuple[int, int]:
    return sum(s.fails for s in strata), sum(s.passes for s in strata)


def test_change_between_windows():
    before = WindowRate(rate=0.10, lower=0.08, upper=0.12, decided=900)
    same = WindowRate(rate=0.105, lower=0.085, upper=0.125, decided=900)
    worse = WindowRate(rate=0.20, lower=0.17, upper=0.23, decided=900)
    assert rate_change_p_value(before, same, 0.95) > 0.5
    assert rate_change_p_value(before, worse, 0.95) < 0.001


def test_change_p_values_are_uniform_when_nothing_changed():
    """Under no change the test's false-alarm rate at alpha = 0.05 stays near 5 %."""
    rng = np.random.default_rng(11)
    alarms = 0
    for _ in range(400):
        windows = [window_fail_rate([_stratum(rng, 3_000, 0.1, 0.15)], draws=DRAWS, seed=rng)]
        windows.append(window_fail_rate([_stratum(rng, 3_000, 0.1, 0.15)], draws=DRAWS, seed=rng))
        alarms += rate_change_p_value(*windows, 0.95) < 0.05
    assert alarms / 400 < 0.09
