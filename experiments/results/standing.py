"""Relative standing: this run's pass rate against the evaluator's earlier runs on the same
evalset, as a Z-score in garak's five bands (bounds −1, −0.125, 0.125, 1, each a strict `<`)."""

from __future__ import annotations

import numpy as np

from ..models import Aggregate, EvaluatorBinding, ExperimentStatus
from .garak import defcon, detector_name, probe_name

LEVELS = ("far below", "below", "typical", "above", "far above")  # garak's DEFCON 1 … 5
MIN_HISTORY = 3
MIN_STD = 1 / 30


def band(z: float) -> str:
    """garak's bands: far below < −1 ≤ below < −0.125 ≤ typical < 0.125 ≤ above < 1 ≤ far above."""
    return LEVELS[defcon(z) - 1]


def relative_standing(
    *, binding: EvaluatorBinding, pass_rate: float | None, history: bool = True
) -> dict:
    """{"z", "level", "n"} or {"level": None, "text": "not enough history", "n"}: against the
    workspace's garak calibration when it has this probe/detector, else (unless `history` is
    False, as garak's console has no history) the run's history."""
    calibrated = _garak_rating(binding, pass_rate)
    if calibrated is not None:
        return calibrated
    if not history:
        return {"level": None, "text": "no garak calibration", "n": 0}
    history = _history(binding)
    if pass_rate is None or len(history) < MIN_HISTORY:
        return {"level": None, "text": "not enough history", "n": len(history)}
    rates = np.asarray(history, dtype=float)
    z = (pass_rate - rates.mean()) / max(float(rates.std()), MIN_STD)
    return {
        "z": float(z),
        "level": band(float(z)),
        "n": len(history),
        "mean": float(rates.mean()),
        "text": f"{band(float(z))} (z = {z:+.2f})",
    }


def _garak_rating(binding: EvaluatorBinding, pass_rate: float | None) -> dict | None:
    """garak's own Z: (pass rate − mu) / max(sigma, 1/30) from an uploaded calibration."""
    from ..models import GarakReference
    from ..selectors import garak_reference

    experiment = binding.experiment
    entries = garak_reference(workspace=experiment.workspace, kind=GarakReference.Kind.CALIBRATION)
    found = entries.get(f"{probe_name(experiment)}/{detector_name(binding)}")
    if found is None or pass_rate is None:
        return None
    z = (pass_rate - found["mu"]) / max(found["sigma"], MIN_STD)
    level = band(z)
    return {
        "z": z,
        "level": level,
        "n": None,
        "mean": found["mu"],
        "source": "garak calibration",
        "text": f"{level} (z = {z:+.2f}, garak calibration)",
    }


def _history(binding: EvaluatorBinding) -> list[float]:
    experiment = binding.experiment
    earlier = Aggregate.objects.filter(
        experiment__workspace_id=experiment.workspace_id,
        experiment__evalset_version__evalset_id=experiment.evalset_version.evalset_id,
        experiment__status=ExperimentStatus.COMPLETED,
        experiment__created_at__lt=experiment.created_at,
        binding__evaluator_version__evaluator_id=binding.evaluator_version.evaluator_id,
    ).exclude(experiment_id=experiment.pk)
    return [a.summary["pass_rate"] for a in earlier if a.summary.get("pass_rate") is not None]
