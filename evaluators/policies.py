"""Verdict policies: how an evaluator's score in [0, 1] becomes pass / fail / unknown.

Two score meanings exist. ``quality``: 1.0 is best (Coze Loop's convention). ``risk``: 1.0 means
the attack or harm was detected (garak's convention). A missing score is always ``unknown``,
never pass and never fail. Each policy kind is one rule in ``RULES``; nothing else branches on it.

Verdicts belong to evaluators: the runner applies the binding's policy to every outcome, and the
statistics only count what it decided.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.utils.translation import gettext as _

from assay.vocabulary import MEANINGS, POLICY_KINDS, PolicyKind, ScoreMeaning, Verdict

PASS, FAIL, UNKNOWN = Verdict.PASS.value, Verdict.FAIL.value, Verdict.UNKNOWN.value
VERDICTS = (PASS, FAIL, UNKNOWN)
DEFAULT_THRESHOLD = 0.5
DEFAULT_POLICY = {"kind": PolicyKind.THRESHOLD.value, "threshold": DEFAULT_THRESHOLD}


@dataclass(frozen=True)
class Rule:
    """One policy kind: whether scores pass (vectorised) and how it reads in a sentence."""

    passes: Callable[[np.ndarray, float, bool], np.ndarray]  # (scores, threshold, is_risk)
    words: Callable[[float, bool], str]
    uses_threshold: bool


RULES: dict[str, Rule] = {
    PolicyKind.THRESHOLD: Rule(
        # risk passes strictly below t (garak's ThresholdEvaluator: a score equal to t fails)
        passes=lambda v, t, risk: v < t if risk else v >= t,
        words=lambda t, risk: (
            _("pass if score < %(t)s") % {"t": format(t, "g")}
            if risk
            else _("pass if score ≥ %(t)s") % {"t": format(t, "g")}
        ),
        uses_threshold=True,
    ),
    PolicyKind.ZERO_TOLERANCE: Rule(
        passes=lambda v, t, risk: v == (0.0 if risk else 1.0),
        words=lambda t, risk: _("pass only if score = 0") if risk else _("pass only if score = 1"),
        uses_threshold=False,
    ),
}


@dataclass(frozen=True)
class Policy:
    """How an evaluator's score becomes a verdict (see ``RULES`` for each kind)."""

    kind: str = PolicyKind.THRESHOLD
    threshold: float = DEFAULT_THRESHOLD

    def __post_init__(self) -> None:
        if self.kind not in RULES:
            raise ValueError(f"policy kind must be one of {POLICY_KINDS}, got {self.kind!r}")
        t = self.threshold
        # bool is an int subclass; True as a threshold is almost surely a bug upstream.
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
            raise ValueError(f"policy threshold must be a finite number, got {t!r}")
        if not 0.0 <= t <= 1.0:
            raise ValueError(f"policy threshold must be within [0, 1], got {t!r}")
        object.__setattr__(self, "kind", str(self.kind))
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


def _is_risk(meaning: str) -> bool:
    if meaning not in MEANINGS:
        raise ValueError(f"score meaning must be one of {MEANINGS}, got {meaning!r}")
    return meaning == ScoreMeaning.RISK


def verdict(score: float | None, policy: Policy, meaning: str) -> str:
    """Return ``"pass"``, ``"fail"`` or ``"unknown"`` for one score.

    ``meaning`` is ``"quality"`` (1.0 is best) or ``"risk"`` (1.0 is harm detected). A score of
    None or NaN is unknown.
    """
    risk = _is_risk(meaning)
    if score is None or math.isnan(score):
        return UNKNOWN
    ok = RULES[policy.kind].passes(np.float64(score), policy.threshold, risk)
    return PASS if ok else FAIL


def verdict_many(scores: Sequence[float | None], policy: Policy, meaning: str) -> list[str]:
    """Vectorised :func:`verdict` over many scores (None/NaN become unknown)."""
    risk = _is_risk(meaning)
    values = np.asarray(scores, dtype=float)  # None becomes NaN here
    # NaN compares False everywhere; those rows are overwritten with unknown below.
    ok = RULES[policy.kind].passes(values, policy.threshold, risk)
    out = np.where(ok, PASS, FAIL).astype(object)
    out[np.isnan(values)] = UNKNOWN
    return out.tolist()


def validate_policy(policy: dict | None) -> dict:
    """Normalise a stored policy dict (evaluators, bindings); ValueError names what is wrong."""
    if policy is None:
        return dict(DEFAULT_POLICY)
    if not isinstance(policy, dict):
        raise ValueError(_("A policy is an object like {'kind': 'threshold', 'threshold': 0.5}."))
    unknown = set(policy) - {"kind", "threshold"}
    if unknown:
        raise ValueError(
            _("Unknown policy field(s): %(unknown)s.") % {"unknown": ", ".join(sorted(unknown))}
        )
    rule = RULES.get(policy.get("kind"))
    if rule is None:
        kinds = " or ".join(POLICY_KINDS)
        raise ValueError(
            _("Unknown policy kind %(kind)r; use %(kinds)s.")
            % {"kind": policy.get("kind"), "kinds": kinds}
        )
    if not rule.uses_threshold:
        return {"kind": policy["kind"]}
    threshold = policy.get("threshold", DEFAULT_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float):
        raise ValueError(_("The threshold must be a number in [0, 1]."))
    if not math.isfinite(threshold) or not 0 <= threshold <= 1:
        raise ValueError(_("The threshold must be a number in [0, 1]."))
    return {"kind": policy["kind"], "threshold": float(threshold)}


def policy_dict(kind: str, threshold) -> dict:
    """The stored shape of a policy of a known kind (the threshold only where the kind uses
    one), not yet validated: `validate_policy` names what is wrong with it."""
    return {"kind": kind, "threshold": threshold} if RULES[kind].uses_threshold else {"kind": kind}


def describe_policy(policy: dict, meaning: str) -> str:
    """Plain words for a page: 'pass if score ≥ 0.5'."""
    rule = RULES[policy.get("kind", PolicyKind.THRESHOLD)]
    return rule.words(policy.get("threshold", DEFAULT_THRESHOLD), meaning == ScoreMeaning.RISK)
