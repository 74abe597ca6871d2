"""Pairwise (A vs B) judging: the order swap, the win rate of B over A, position bias and a
Bradley–Terry ranking of three or more experiments.

Every pair is judged twice, outputs in order (A = baseline, B = candidate) and swapped;
`pair_verdict` folds the two answers into one outcome in the unswapped frame — "A", "B", "tie"
or "unknown" — and flags orders that disagree. Those outcomes feed `win_rate` (a seeded
bootstrap CI, clustered by item when items repeat, and the exact sign test) and, across several
experiments, `bradley_terry`. Plain values in, dataclasses with `to_dict` out; the words for a
page are the caller's (the `words` key is a code, not a sentence).

The package: `common` (the outcome words; the both-orders rule itself is
`evaluators.pairing`, shared with the judge kind), `position` (position bias), `winrate` (B
over A) and `bradley_terry` (three or more experiments). Import from here.
"""

from __future__ import annotations

from .bradley_terry import (
    BLOCK_ELEMENTS,
    BT_RESAMPLES,
    PRIOR_SD,
    STRENGTH_TOLERANCE,
    BradleyTerry,
    Match,
    Strength,
    bradley_terry,
)
from .common import OUTCOMES, TIE, TIES_MODES, UNKNOWN, A, B, pair_verdict, parse_answer
from .position import PositionBias, position_bias, wilson_ci
from .winrate import (
    A_BETTER,
    B_BETTER,
    NO_DIFFERENCE,
    NOTHING_TO_COMPARE,
    WinRate,
    sign_test,
    win_rate,
)

__all__ = [
    "A",
    "A_BETTER",
    "B",
    "BLOCK_ELEMENTS",
    "BT_RESAMPLES",
    "B_BETTER",
    "BradleyTerry",
    "Match",
    "NOTHING_TO_COMPARE",
    "NO_DIFFERENCE",
    "OUTCOMES",
    "PRIOR_SD",
    "PositionBias",
    "STRENGTH_TOLERANCE",
    "Strength",
    "TIE",
    "TIES_MODES",
    "UNKNOWN",
    "WinRate",
    "bradley_terry",
    "pair_verdict",
    "parse_answer",
    "position_bias",
    "sign_test",
    "wilson_ci",
    "win_rate",
]
