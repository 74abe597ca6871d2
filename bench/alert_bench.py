"""Online alerts on simulated traffic: how often a quiet rule raises a false alert, and how
fast a real change is caught, with the default settings (hourly windows, a 24-window rolling
baseline, 5 % of quiet rule-weeks allowed to alert).

    python bench/alert_bench.py [--weeks 2000] [--changes 2000] [--seed 7]

False alerts: rule-weeks of 168 hourly windows (after a day of baseline) with a constant fail
rate; the share of weeks with at least one alert, with its 95 % (Wilson) interval. Detection: a
day at the rate, then the fail rate 10 points higher; the share of runs that fire in the first
or second changed window. Both for several rates and window sizes. Pure statistics (no
database); asserts nothing. Targets: false ≤ 5 %, detected within 2 windows ≥ 90 % at 500 items
a window.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from experiments.stats.alerts import Settings, proportion, replay  # noqa: E402

BASELINE = 24
WEEK = 168


def false_alert_share(rate: float, n: int, weeks: int, rng) -> float:
    """Share of quiet rule-weeks with an alert."""
    settings = Settings()
    fails = rng.binomial(n, rate, size=(weeks, BASELINE + WEEK))
    alerted = 0
    for week in fails:
        decisions = replay([proportion(int(k), n) for k in week], settings)
        alerted += any(d.action == "fired" for d in decisions[BASELINE:])
    return alerted / weeks


def detected_share(rate: float, n: int, runs: int, rng, rise: float = 0.10) -> float:
    """Share of runs whose alert fires in the first or second window after the rise."""
    settings = Settings()
    before = rng.binomial(n, rate, size=(runs, BASELINE))
    after = rng.binomial(n, rate + rise, size=(runs, 2))
    caught = 0
    for quiet, changed in zip(before, after, strict=True):
        history = [proportion(int(k), n) for k in (*quiet, *changed)]
        caught += any(d.action == "fired" for d in replay(history, settings)[BASELINE:])
    return caught / runs


def wilson(share: float, n: int) -> str:
    z = 1.96
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"[{max(centre - half, 0):.1%}, {min(centre + half, 1):.1%}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weeks", type=int, default=2000)
    parser.add_argument("--changes", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"per-test critical z at the defaults: {Settings().z_critical:.3f}")
    for rate in (0.05, 0.2, 0.5):
        for n in (50, 500):
            started = time.perf_counter()
            false = false_alert_share(rate, n, args.weeks, rng)
            caught = detected_share(rate, n, args.changes, rng)
            print(
                f"fail rate {rate:.0%}, {n} items a window: false alerts in "
                f"{false:.2%} {wilson(false, args.weeks)} of {args.weeks:,} quiet rule-weeks; "
                f"a 10-point rise caught within 2 windows in {caught:.1%} "
                f"{wilson(caught, args.changes)} of {args.changes:,} runs "
                f"({time.perf_counter() - started:.1f} s)"
            )


if __name__ == "__main__":
    main()
