"""Pure statistics for experiments: counts, bootstrap CIs, paired comparison, pairwise
(A vs B) judging and agreement between reviewers.

No Django set-up needed: everything here takes plain Python values or numpy arrays, so it is
usable from tasks, views, exports and management commands alike. Verdicts themselves are the
evaluators' business (`evaluators.policies`); the statistics count what they decided.
"""

from .agreement import Agreement, PairKappa, cohen_kappa, krippendorff_alpha, reviewer_agreement
from .bootstrap import MEAN_CI_BOOTSTRAP_MAX_N, bootstrap_ci, mean_ci, rogan_gladen
from .compare import Comparison, compare_paired, mcnemar_exact
from .pairwise import (
    BradleyTerry,
    PositionBias,
    Strength,
    WinRate,
    bradley_terry,
    pair_verdict,
    position_bias,
    win_rate,
)
from .summary import COUNT_KEYS, Summary, summarize

__all__ = [
    "COUNT_KEYS",
    "MEAN_CI_BOOTSTRAP_MAX_N",
    "Agreement",
    "BradleyTerry",
    "Comparison",
    "PairKappa",
    "PositionBias",
    "Strength",
    "Summary",
    "WinRate",
    "bootstrap_ci",
    "bradley_terry",
    "cohen_kappa",
    "compare_paired",
    "krippendorff_alpha",
    "mcnemar_exact",
    "mean_ci",
    "pair_verdict",
    "position_bias",
    "reviewer_agreement",
    "rogan_gladen",
    "summarize",
    "win_rate",
]
