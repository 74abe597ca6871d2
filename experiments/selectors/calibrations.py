"""Reads of judges' calibrations (`JudgeCalibration`): an evaluator version's, from labelled
runs and from annotation queues' gold labels, each with Wilson intervals (95 %) for its
sensitivity and specificity and, for gold labels, the reviewers' own alpha beside the
judge's kappa. The evaluator version's page shows them through a panel (evaluators may not
read experiments' tables), the API under /evaluators/{id}/calibrations/, and annotation's
queue page those of its gold labels."""

from __future__ import annotations

from evaluators.models import Evaluator, EvaluatorVersion

from ..models import JudgeCalibration
from ..stats.pairwise import wilson_ci


def calibration_shown(calibration: JudgeCalibration) -> dict:
    """A calibration as plain values: counts, rates with their intervals, kappa, the labels
    it used (gold: the queue, config and inter-human alpha) and the run it came from."""
    counts = calibration.confusion
    experiment = calibration.experiment
    version = calibration.evaluator_version
    return {
        "id": str(calibration.public_id),
        "evaluator": version.evaluator.name,
        "evaluator_id": str(version.evaluator.public_id),
        "version": version.version,
        "source": calibration.source,
        "n": calibration.n,
        "confusion": counts,
        "agreement": calibration.agreement,
        "sensitivity": calibration.sensitivity,
        "sensitivity_ci": _interval(counts.get("tp", 0), counts.get("fn", 0)),
        "specificity": calibration.specificity,
        "specificity_ci": _interval(counts.get("tn", 0), counts.get("fp", 0)),
        "kappa": calibration.kappa,
        "inter_human_alpha": (calibration.labels or {}).get("inter_human_alpha"),
        "usable": calibration.usable,
        "labels": calibration.labels,
        "experiment": experiment and str(experiment.public_id),
        "experiment_name": experiment and experiment.name,
        "created_at": calibration.created_at.isoformat(),
    }


def _interval(hits: int, misses: int) -> list[float] | None:
    found = wilson_ci(hits, hits + misses)
    return list(found) if found else None


def _read(calibrations) -> list[dict]:
    related = calibrations.select_related("evaluator_version__evaluator", "experiment")
    return [calibration_shown(c) for c in related.order_by("-created_at", "-pk")]


def evaluator_calibrations(
    *, evaluator: Evaluator, version: EvaluatorVersion | None = None
) -> list[dict]:
    """The calibrations of the evaluator's versions (or of one), newest first."""
    found = JudgeCalibration.objects.filter(evaluator_version__evaluator=evaluator)
    return _read(found if version is None else found.filter(evaluator_version=version))


def gold_calibrations(*, source_prefix: str) -> list[dict]:
    """The calibrations recorded from gold labels whose source key starts with the prefix
    (annotation's "<queue id>/"), by source and version."""
    found = JudgeCalibration.objects.filter(
        source=JudgeCalibration.Source.GOLD, source_key__startswith=source_prefix
    )
    return _read(found)
