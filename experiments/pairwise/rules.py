"""What a pairwise run can judge: finished experiments whose target produced the outputs
(`TargetResult.output`) that the judge compares. Plain predicates, shared by the service that
refuses the rest and the selector that offers only these."""

from __future__ import annotations

from ..models import Experiment, ExperimentStatus

# Finished as for a re-score: a failed or cancelled run's outputs are what they are, and a
# pair without an output on one side is a row of its own (skipped, unknown), never dropped.
FINISHED = (ExperimentStatus.COMPLETED, ExperimentStatus.FAILED, ExperimentStatus.CANCELLED)
MIN_EXPERIMENTS, MAX_EXPERIMENTS = 2, 8


def judgeable(experiment: Experiment) -> bool:
    """A finished experiment whose target produced outputs (not one that scored a column)."""
    return experiment.status in FINISHED and experiment.target_spec.produces_output
