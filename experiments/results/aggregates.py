"""Per (experiment, evaluator) numbers for the dashboard, stored so a page reads one row."""

from __future__ import annotations

from django.db import transaction

from ..models import Aggregate, Experiment, Result
from ..stats import bootstrap_ci, mean_ci, summarize

MIN_SAMPLE = 30


def aggregates_refresh(*, experiment: Experiment, binding_ids: list[int] | None = None) -> None:
    """Recompute the aggregates (all bindings, or the given ones) from the results."""
    bindings = experiment.bindings.select_related("evaluator_version")
    if binding_ids is not None:
        bindings = bindings.filter(pk__in=binding_ids)
    for binding in bindings:
        summary = binding_summary(experiment=experiment, binding=binding)
        with transaction.atomic():
            Aggregate.objects.update_or_create(
                binding=binding, defaults={"experiment": experiment, "summary": summary}
            )


def binding_summary(*, experiment: Experiment, binding) -> dict:
    """Counts, rates with CIs, mean with CI, histogram, tags and status counts of one evaluator."""
    rows = Result.objects.filter(experiment=experiment, binding=binding).values_list(
        "score", "human_score", "verdict", "human_verdict", "tags", "status"
    )
    scores, verdicts, tags, statuses = [], [], [], {}
    for score, human_score, verdict, human_verdict, row_tags, status in rows.iterator(10000):
        scores.append(human_score if human_verdict and human_score is not None else score)
        verdicts.append(human_verdict or verdict)
        tags.append(row_tags or [])
        statuses[status] = statuses.get(status, 0) + 1
    summary = summarize(scores, verdicts, tags).to_dict()
    calibration = _calibration(binding)
    summary["fail_rate_ci"] = bootstrap_ci(
        summary["fails"],
        summary["passed"],
        min_sample=MIN_SAMPLE,
        sensitivity=calibration["sensitivity"],
        specificity=calibration["specificity"],
        seed=0,
    )
    summary["mean_ci"] = mean_ci(
        [s for s in scores if s is not None], min_sample=MIN_SAMPLE, seed=0
    )
    summary["statuses"] = statuses
    summary["calibration"] = calibration
    results = Result.objects.filter(experiment=experiment, binding=binding)
    summary["corrected"] = results.exclude(human_verdict="").count()
    return summary


def _calibration(binding) -> dict:
    """Se/Sp of the judge from its newest usable calibration; 1 and 1 (no correction) else."""
    from .calibration import calibration_for

    found = calibration_for(binding)
    if found is None:
        return {"sensitivity": 1.0, "specificity": 1.0, "applied": False}
    return {
        "sensitivity": found.sensitivity,
        "specificity": found.specificity,
        "applied": True,
        "n": found.n,
        "kappa": found.kappa,
        "experiment": str(found.experiment.public_id),
        "experiment_name": found.experiment.name,
    }
