"""Position bias: how much the order of the two outputs swayed a judge."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from ..bootstrap import check_confidence
from .common import A, B, lists, pair_verdict, parse_answer


@dataclass(frozen=True)
class PositionBias:
    """How much the order of the outputs swayed a judge.

    ``judged`` pairs had two readable answers (``unknown`` did not); ``inconsistent`` of them
    changed outcome with the order. ``first_position_wins`` / ``second_position_wins`` count
    single answers that picked the output shown first / second (two answers per pair). Every
    inconsistent pair favours one position (A then A, or a win in one order and a tie in the
    other): ``leaning_first`` / ``leaning_second`` count them, and ``first_position_share`` is
    the share leaning first (0.5 = the inconsistency is noise, not a preference for a slot).
    Intervals are Wilson score intervals over pairs, the independent unit.
    """

    pairs: int
    judged: int
    unknown: int
    inconsistent: int
    inconsistent_rate: float | None
    inconsistent_ci: tuple[float, float] | None
    first_position_wins: int
    second_position_wins: int
    leaning_first: int
    leaning_second: int
    first_position_share: float | None
    first_position_ci: tuple[float, float] | None
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return lists(asdict(self), ("inconsistent_ci", "first_position_ci"))


def position_bias(
    pairs: Iterable[tuple[object, object]], *, confidence: float = 0.95
) -> PositionBias:
    """Position bias of a judge from its raw (first, swapped) answers, one tuple per pair."""
    check_confidence(confidence)
    total = unknown = inconsistent = first_wins = second_wins = leaning_first = 0
    for first, swapped in pairs:
        total += 1
        answers = (parse_answer(first), parse_answer(swapped))
        if None in answers:
            unknown += 1
            continue
        # Raw answers name positions: "A" is whichever output was shown first in that order.
        first_here, second_here = answers.count(A), answers.count(B)
        first_wins, second_wins = first_wins + first_here, second_wins + second_here
        if pair_verdict(*answers)[1]:
            inconsistent += 1
            leaning_first += first_here > second_here
    judged = total - unknown
    return PositionBias(
        pairs=total,
        judged=judged,
        unknown=unknown,
        inconsistent=inconsistent,
        inconsistent_rate=inconsistent / judged if judged else None,
        inconsistent_ci=wilson_ci(inconsistent, judged, confidence),
        first_position_wins=first_wins,
        second_position_wins=second_wins,
        leaning_first=leaning_first,
        leaning_second=inconsistent - leaning_first,
        first_position_share=leaning_first / inconsistent if inconsistent else None,
        first_position_ci=wilson_ci(leaning_first, inconsistent, confidence),
        confidence=confidence,
    )


def wilson_ci(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of successes / n (scipy's), None when n is 0."""
    # scipy loads on first use: imported with the module it costs every process ~76 MB
    from scipy import stats as scipy_stats

    if n == 0:
        return None
    ci = scipy_stats.binomtest(successes, n).proportion_ci(confidence, method="wilson")
    return float(ci.low), float(ci.high)
