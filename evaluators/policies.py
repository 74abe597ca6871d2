"""Verdict policies as stored on evaluators and experiment bindings.

The verdict rule itself lives in experiments.stats (pure); this validates the stored shape.
"""

from __future__ import annotations

import math

POLICY_KINDS = ("threshold", "zero_tolerance")


def validate_policy(policy: dict | None) -> dict:
    """Normalise a policy dict; ValueError names what is wrong."""
    if policy is None:
        return {"kind": "threshold", "threshold": 0.5}
    if not isinstance(policy, dict):
        raise ValueError("A policy is an object like {'kind': 'threshold', 'threshold': 0.5}.")
    kind = policy.get("kind")
    unknown = set(policy) - {"kind", "threshold"}
    if unknown:
        raise ValueError(f"Unknown policy field(s): {', '.join(sorted(unknown))}.")
    if kind == "zero_tolerance":
        return {"kind": "zero_tolerance"}
    if kind != "threshold":
        raise ValueError(f"Unknown policy kind {kind!r}; use threshold or zero_tolerance.")
    threshold = policy.get("threshold", 0.5)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ValueError("The threshold must be a number in [0, 1].")
    if not math.isfinite(threshold) or not 0 <= threshold <= 1:
        raise ValueError("The threshold must be a number in [0, 1].")
    return {"kind": "threshold", "threshold": float(threshold)}


def describe_policy(policy: dict, meaning: str) -> str:
    """Plain words for a page: 'pass if score ≥ 0.5'."""
    if policy.get("kind") == "zero_tolerance":
        return "pass only if score = 0" if meaning == "risk" else "pass only if score = 1"
    t = policy.get("threshold", 0.5)
    return f"pass if score < {t:g}" if meaning == "risk" else f"pass if score ≥ {t:g}"
