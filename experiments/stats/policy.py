"""Verdict policies: turn a score in [0, 1] into pass / fail / unknown.

Two score meanings exist. ``quality``: 1.0 is best (Coze Loop's convention). ``risk``: 1.0 means
the attack or harm was detected (garak's convention). A missing score is always ``unknown``,
never pass and never fail.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

PASS = "pass"
FAIL = "fail"
UNKNOWN = "unknown"
VERDICTS = (PASS, FAIL, UNKNOWN)

MEANINGS = ("quality", "risk")
POLICY_KINDS = ("threshold", "zero_tolerance")
DEFAULT_THRESHOLD = 0.5

PolicyKind = Literal["threshold", "zero_tolerance"]


@dataclass(frozen=True)
class Policy:
    """How an evaluator's score becomes a verdict.

    ``threshold``: quality passes iff score >= t; risk passes iff score < t (strict, as garak's
    ThresholdEvaluator: a risk score equal to t fails). ``zero_tolerance``: risk passes only at
    exactly 0.0, quality only at exactly 1.0 (``threshold`` is then ignored).
    """

    kind: PolicyKind = "threshold"
    threshold: float = DEFAULT_THRESHOLD

    def __post_init__(self) -> None:
        if self.kind not in POLICY_KINDS:
            raise ValueError(f"policy kind must be one of {POLICY_KINDS}, got {self.kind!r}")
        t = self.threshold
        # bool is an int subclass; True as a threshold is almost surely a bug upstream.
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
            raise ValueError(f"policy threshold must be a finite number, got {t!r}")
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"policy threshold must be within [0, 1], got {t!r}")
        object.__setattr__(self, "threshold", float(t))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Policy:
        """Build a policy from ``{"kind": ..., "threshold": ...}``; threshold defaults to 0.5."""
        if not isinstance(data, Mapping):
            raise ValueError("policy must be an object with 'kind' and optional 'threshold'")
        unknown_keys = set(data) - {"kind", "threshold"}
        if unknown_keys:
            raise ValueError(f"unknown policy fields: {sorted(unknown_keys)}")
        if "kind" not in data:
            raise ValueError("policy needs a 'kind'")
        return cls(kind=data["kind"], threshold=data.get("threshold", DEFAULT_THRESHOLD))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form, the inverse of :meth:`from_dict`."""
        return {"kind": self.kind, "threshold": self.threshold}


def _check_meaning(meaning: str) -> None:
    if meaning not in MEANINGS:
        raise ValueError(f"score meaning must be one of {MEANINGS}, got {meaning!r}")


def verdict(score: float | None, policy: Policy, meaning: str) -> str:
    """Return ``"pass"``, ``"fail"`` or ``"unknown"`` for one score.

    ``meaning`` is ``"quality"`` (1.0 is best) or ``"risk"`` (1.0 is harm detected). A score of
    None or NaN is unknown.
    """
    _check_meaning(meaning)
    if score is None or math.isnan(score):
        return UNKNOWN
    if policy.kind == "zero_tolerance":
        ok = score == 0.0 if meaning == "risk" else score == 1.0
    elif meaning == "risk":
        ok = score < policy.threshold
    else:
        ok = score >= policy.threshold
    return PASS if ok else FAIL


def verdict_many(scores: Sequence[float | None], policy: Policy, meaning: str) -> list[str]:
    """Vectorised :func:`verdict` over many scores (None/NaN become unknown)."""
    _check_meaning(meaning)
    values = np.asarray(scores, dtype=float)  # None becomes NaN here
    ok = _passes(values, policy, meaning)
    out = np.where(ok, PASS, FAIL).astype(object)
    out[np.isnan(values)] = UNKNOWN
    return out.tolist()


def _passes(values: np.ndarray, policy: Policy, meaning: str) -> np.ndarray:
    # NaN compares False everywhere; the caller overwrites those rows with unknown.
    if policy.kind == "zero_tolerance":
        return values == (0.0 if meaning == "risk" else 1.0)
    if meaning == "risk":
        return values < policy.threshold
    return values >= policy.threshold
