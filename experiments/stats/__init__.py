"""Pure statistics for experiments: verdicts, counts, bootstrap CIs and paired comparison.

No Django imports: everything here takes plain Python values or numpy arrays, so it is usable
from tasks, views, exports and management commands alike.
"""

from .bootstrap import MEAN_CI_BOOTSTRAP_MAX_N, bootstrap_ci, mean_ci, rogan_gladen
from .compare import Comparison, compare_paired, mcnemar_exact
from .policy import FAIL, PASS, UNKNOWN, Policy, verdict, verdict_many
from .summary import Summary, summarize

__all__ = [
    "FAIL",
    "MEAN_CI_BOOTSTRAP_MAX_N",
    "PASS",
    "UNKNOWN",
    "Comparison",
    "Policy",
    "Summary",
    "bootstrap_ci",
    "compare_paired",
    "mcnemar_exact",
    "mean_ci",
    "rogan_gladen",
    "summarize",
    "verdict",
    "verdict_many",
]
