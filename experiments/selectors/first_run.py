"""The first-run card: how far a new workspace is along evaluation set → evaluator →
experiment."""

from __future__ import annotations

from assay.models import Workspace
from evalsets.models import EvalSetVersion
from evaluators.models import EvaluatorVersion

from ..models import Experiment


def first_run_steps(*, workspace: Workspace) -> dict | None:
    """Which of the first steps are done, or None once the workspace has an experiment (the
    card is for a workspace that has never run one)."""
    if Experiment.objects.filter(workspace=workspace).exists():
        return None
    return {
        "evalset": EvalSetVersion.objects.filter(
            evalset__workspace=workspace, evalset__deleted_at__isnull=True
        ).exists(),
        "evaluator": EvaluatorVersion.objects.filter(
            evaluator__workspace=workspace, evaluator__deleted_at__isnull=True
        ).exists(),
    }
