"""Paired comparison of two experiments on the same items, per evaluator.

Items pair on their id. Pass/fail flips feed McNemar's exact test and a paired bootstrap CI of
the pass-rate difference; flips to or from unknown are counted apart, never as regressions.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from assay.vocabulary import Verdict

from .bootstrap import check_confidence, check_iterations, mean_ci_of_values, percentile_bounds

PASS, FAIL = Verdict.PASS.value, Verdict.FAIL.value

# Significance level of the plain-words verdict (the CI level is the caller's ``confidence``).
SIGNIFICANCE = 0.05

ItemId = Hashable
Outcome = tuple[str, float | None]


@dataclass(frozen=True)
class Comparison:
    """Candidate vs baseline on the items both ran.

    Flip fields hold item ids in baseline order: ``regressions`` pass→fail, ``improvements``
    fail→pass, ``to_unknown`` pass/fail→unknown, ``from_unknown`` unknown→pass/fail.
    ``unchanged`` counts pairs with the same verdict (unknown→unknown included). Pass rates are
    over the ``n_decided`` pairs where both sides are pass/fail; mean scores over the
    ``n_scored`` pairs where both scores are non-null. Deltas are candidate − baseline.
    """

    n_paired: int
    only_in_baseline: list[ItemId]
    only_in_candidate: list[ItemId]
    regressions: list[ItemId]
    improvements: list[ItemId]
    unchanged: int
    to_unknown: list[ItemId]
    from_unknown: list[ItemId]
    n_decided: int
    mcnemar_p: float
    pass_rate_baseline: float | None
    pass_rate_candidate: float | None
    pass_rate_delta: float | None
    pass_rate_delta_ci: tuple[float, float] | None
    n_scored: int
    mean_score_baseline: float | None
    mean_score_candidate: float | None
    mean_score_delta: float | None
    mean_score_delta_ci: tuple[float, float] | None
    confidence: float
    plain_words: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form; ids that are not str/int (e.g. UUIDs) become strings."""
        data = asdict(self)
        for key in ID_LIST_FIELDS:
            data[key] = [_json_id(item) for item in data[key]]
        for key in ("pass_rate_delta_ci", "mean_score_delta_ci"):
            data[key] = list(data[key]) if data[key] is not None else None
        return data


ID_LIST_FIELDS = (
    "only_in_baseline",
    "only_in_candidate",
    "regressions",
    "improvements",
    "to_unknown",
    "from_unknown",
)


def mcnemar_exact(b: int, c: int) -> float:
    """Exact two-sided McNemar p-value for discordant counts b and c.

    Under no difference each discordant pair is a fair coin, so this is the two-sided binomial
    test of min(b, c) in b + c trials with p = 0.5: ``min(1, 2 * P(X <= min(b, c)))``; 1.0 when
    there is no discordant pair.
    """
    # scipy loads on first use: imported with the module it costs every process ~76 MB
    from scipy import stats as scipy_stats

    if b < 0 or c < 0:
        raise ValueError("discordant counts must be non-negative")
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * float(scipy_stats.binom.cdf(min(b, c), n, 0.5)))


def mcnemar_worse(regressions: int, improvements: int) -> float:
    """Exact one-sided McNemar p-value that the candidate is worse: P(X ≥ regressions) for
    X ~ Binomial(regressions + improvements, 0.5); 1.0 when there is no discordant pair."""
    # scipy loads on first use: imported with the module it costs every process ~76 MB
    from scipy import stats as scipy_stats

    if regressions < 0 or improvements < 0:
        raise ValueError("discordant counts must be non-negative")
    n = regressions + improvements
    if n == 0:
        return 1.0
    return float(scipy_stats.binom.sf(regressions - 1, n, 0.5))


def compare_paired(
    baseline: Mapping[ItemId, Outcome],
    candidate: Mapping[ItemId, Outcome],
    *,
    iterations: int = 10_000,
    confidence: float = 0.95,
    seed: int | None = None,
) -> Comparison:
    """Compare two runs paired on item id; each maps item id -> (verdict, score).

    A verdict other than "pass"/"fail" counts as unknown; a score may be None. Returns the
    flips, McNemar's exact p on pass↔fail flips, paired bootstrap CIs of the pass-rate and
    mean-score differences, and a plain-words verdict ("better", "worse" or "no detectable
    difference at n = N").
    """
    check_iterations(iterations)
    check_confidence(confidence)
    pairs = _Pairs.build(baseline, candidate)
    flips = _flips(pairs)
    rng = np.random.default_rng(seed)
    rates = _pass_rates(pairs, iterations, confidence, rng)
    scores = _mean_scores(pairs, iterations, confidence, rng)
    p_value = mcnemar_exact(len(flips["regressions"]), len(flips["improvements"]))
    return Comparison(
        n_paired=int(pairs.ids.size),
        only_in_baseline=[item for item in baseline if item not in candidate],
        only_in_candidate=[item for item in candidate if item not in baseline],
        **flips,
        mcnemar_p=p_value,
        **rates,
        **scores,
        confidence=confidence,
        plain_words=_plain_words(p_value, rates["pass_rate_delta_ci"], rates["n_decided"]),
    )


# Verdict codes inside this module; anything that is not pass/fail is unknown.
_CODES = {PASS: 0, FAIL: 1}
_UNKNOWN_CODE = 2


@dataclass(frozen=True)
class _Pairs:
    """Paired items as arrays (baseline order): ids, verdict codes and scores (NaN = none)."""

    ids: np.ndarray
    base_code: np.ndarray
    cand_code: np.ndarray
    base_score: np.ndarray
    cand_score: np.ndarray

    @classmethod
    def build(
        cls, baseline: Mapping[ItemId, Outcome], candidate: Mapping[ItemId, Outcome]
    ) -> _Pairs:
        paired = [item for item in baseline if item in candidate]
        # fromiter keeps tuple ids whole where np.array would unpack them into columns.
        ids = np.fromiter(paired, dtype=object, count=len(paired))
        base = [baseline[item] for item in paired]
        cand = [candidate[item] for item in paired]
        return cls(ids, _codes(base), _codes(cand), _scores(base), _scores(cand))


def _codes(outcomes: Sequence[Outcome]) -> np.ndarray:
    codes = (_CODES.get(verdict, _UNKNOWN_CODE) for verdict, _ in outcomes)
    return np.fromiter(codes, dtype=np.int8, count=len(outcomes))


def _scores(outcomes: Sequence[Outcome]) -> np.ndarray:
    return np.asarray([score for _, score in outcomes], dtype=float).reshape(-1)


def _flips(pairs: _Pairs) -> dict[str, Any]:
    """Sort pairs into regressions / improvements / to or from unknown, and count the rest."""
    b, c = pairs.base_code, pairs.cand_code
    b_known, c_known = b != _UNKNOWN_CODE, c != _UNKNOWN_CODE
    masks = {
        "regressions": (b == _CODES[PASS]) & (c == _CODES[FAIL]),
        "improvements": (b == _CODES[FAIL]) & (c == _CODES[PASS]),
        "to_unknown": b_known & ~c_known,
        "from_unknown": ~b_known & c_known,
    }
    out: dict[str, Any] = {name: pairs.ids[mask].tolist() for name, mask in masks.items()}
    out["unchanged"] = int(np.count_nonzero(b == c))
    return out


def _pass_rates(
    pairs: _Pairs, iterations: int, confidence: float, rng: np.random.Generator
) -> dict[str, Any]:
    """Pass rates over decided pairs and the paired bootstrap CI of their difference.

    The difference depends only on how many resampled pairs are fail→pass (+1) and pass→fail
    (−1), so resampling m pairs is one multinomial draw over those two cells and the rest:
    O(B) and identical in distribution to resampling the pairs themselves.
    """
    decided = (pairs.base_code != _UNKNOWN_CODE) & (pairs.cand_code != _UNKNOWN_CODE)
    m = int(np.count_nonzero(decided))
    if m == 0:
        return dict.fromkeys(_RATE_FIELDS, None) | {"n_decided": 0}
    base_pass = pairs.base_code[decided] == _CODES[PASS]
    cand_pass = pairs.cand_code[decided] == _CODES[PASS]
    up = int(np.count_nonzero(~base_pass & cand_pass))
    down = int(np.count_nonzero(base_pass & ~cand_pass))
    draws = rng.multinomial(m, [up / m, down / m, (m - up - down) / m], size=iterations)
    deltas = (draws[:, 0] - draws[:, 1]) / m
    return {
        "n_decided": m,
        "pass_rate_baseline": float(base_pass.mean()),
        "pass_rate_candidate": float(cand_pass.mean()),
        "pass_rate_delta": (up - down) / m,
        "pass_rate_delta_ci": percentile_bounds(deltas, confidence),
    }


_RATE_FIELDS = (
    "pass_rate_baseline",
    "pass_rate_candidate",
    "pass_rate_delta",
    "pass_rate_delta_ci",
)
_SCORE_FIELDS = (
    "mean_score_baseline",
    "mean_score_candidate",
    "mean_score_delta",
    "mean_score_delta_ci",
)


def _mean_scores(
    pairs: _Pairs, iterations: int, confidence: float, rng: np.random.Generator
) -> dict[str, Any]:
    """Mean scores over pairs with both scores, and the CI of the mean paired difference."""
    scored = ~np.isnan(pairs.base_score) & ~np.isnan(pairs.cand_score)
    n = int(np.count_nonzero(scored))
    if n == 0:
        return dict.fromkeys(_SCORE_FIELDS, None) | {"n_scored": 0}
    base, cand = pairs.base_score[scored], pairs.cand_score[scored]
    diffs = cand - base
    return {
        "n_scored": n,
        "mean_score_baseline": float(base.mean()),
        "mean_score_candidate": float(cand.mean()),
        "mean_score_delta": float(diffs.mean()),
        "mean_score_delta_ci": mean_ci_of_values(diffs, iterations, confidence, rng),
    }


def _plain_words(p_value: float, delta_ci: tuple[float, float] | None, n_decided: int) -> str:
    """ "better" / "worse" need both a significant McNemar test and a CI clear of zero."""
    if delta_ci is None:
        return "no pass/fail pairs to compare"
    if p_value < SIGNIFICANCE and delta_ci[0] > 0:
        return "better"
    if p_value < SIGNIFICANCE and delta_ci[1] < 0:
        return "worse"
    return f"no detectable difference at n = {n_decided}"


def _json_id(item: ItemId) -> str | int:
    if isinstance(item, str) or (isinstance(item, int) and not isinstance(item, bool)):
        return item
    return str(item)
