"""How a run's intervals are computed: method (`bootstrap` | `none`), resamples, confidence
level, the smallest sample that gets one, garak's exact resampling and its seed. Defaults are
garak's (10,000 resamples, 95 %, n ≥ 30); a workspace may set its own, a run overrides them."""

from __future__ import annotations

import math

DEFAULTS = {
    "method": "bootstrap",
    "iterations": 10_000,
    "confidence": 0.95,
    "min_sample": 30,
    "exact_garak": False,
    "seed": 0,
}
METHODS = ("bootstrap", "none")


def interval_problems(value) -> list[str]:
    """What is wrong with interval settings (a partial dict is fine: defaults fill it)."""
    if not isinstance(value, dict):
        return ["interval is an object (method, iterations, confidence, min_sample, …)."]
    problems = [f"Unknown field {k!r}." for k in sorted(set(value) - set(DEFAULTS))]
    checks = {
        "method": lambda v: v in METHODS,
        "iterations": lambda v: _whole(v) and 100 <= v <= 1_000_000,
        "confidence": lambda v: _number(v) and 0.5 <= v < 1,
        "min_sample": lambda v: _whole(v) and 1 <= v <= 1_000_000,
        "exact_garak": lambda v: isinstance(v, bool),
        "seed": lambda v: _whole(v) and 0 <= v < 2**32,
    }
    words = {
        "method": "bootstrap or none",
        "iterations": "a whole number from 100 to 1,000,000",
        "confidence": "a number from 0.5 up to (not including) 1",
        "min_sample": "a whole number from 1 to 1,000,000",
        "exact_garak": "true or false",
        "seed": "a whole number from 0 to 2^32 − 1",
    }
    for key, ok in checks.items():
        if key in value and not ok(value[key]):
            problems.append(f"{key} is {words[key]}.")
    return problems


def interval_settings(*layers: dict | None) -> dict:
    """The defaults, overridden by each layer in turn (workspace, then run)."""
    merged = dict(DEFAULTS)
    for layer in layers:
        merged.update({k: v for k, v in (layer or {}).items() if k in DEFAULTS})
    return merged


def interval_text(settings: dict) -> str:
    """The settings in words, for the dashboard card."""
    if settings["method"] == "none":
        return "no intervals"
    text = (
        f"{settings['confidence'] * 100:g}% bootstrap, {settings['iterations']:,} resamples, "
        f"n ≥ {settings['min_sample']}"
    )
    if settings["exact_garak"]:
        text += f", garak's exact resampling (seed {settings['seed']})"
    return text


def pass_interval(fail_ci) -> tuple[float, float] | None:
    """The pass-rate interval is the fail-rate interval mirrored (1 − upper, 1 − lower)."""
    if not fail_ci:
        return None
    return (1 - fail_ci[1], 1 - fail_ci[0])


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
