"""garak's reference data uploaded to a workspace: a calibration (probe/detector → mu, sigma)
or detector metrics (sensitivity, specificity), which garak scans and their experiments are
rated and corrected with."""

from __future__ import annotations

import json

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

MAX_REFERENCE_BYTES = 16 * 1024 * 1024


def garak_reference_upload(*, workspace, name: str, data: bytes):
    """Store a garak calibration file (garak/data/calibration/*.json) or its detector-metrics
    file (detector_metrics_summary.json), told apart by their shape. Calibrations then rate
    runs whose probe/detector names match; metrics correct those detectors' intervals."""
    from ..models import GarakReference

    if len(data) > MAX_REFERENCE_BYTES:
        raise ValidationError({"file": _("A garak reference file is at most 16 MB.")})
    try:
        parsed = json.loads(data)
    except ValueError:
        raise ValidationError({"file": _("The file is not JSON.")}) from None
    kind, entries = _reference_entries(parsed)
    return GarakReference.objects.create(
        workspace=workspace, kind=kind, name=(name or "garak")[:200], entries=entries
    )


def _reference_entries(parsed) -> tuple[str, dict]:
    from ..models import GarakReference

    if isinstance(parsed, dict) and isinstance(parsed.get("results"), dict):
        metrics = {
            detector.removeprefix("detector."): _se_sp(value)
            for detector, value in parsed["results"].items()
        }
        return GarakReference.Kind.DETECTOR_METRICS, {k: v for k, v in metrics.items() if v}
    if isinstance(parsed, dict):
        distributions = {
            key: {"mu": float(v["mu"]), "sigma": float(v["sigma"])}
            for key, v in parsed.items()
            if "/" in key and isinstance(v, dict) and _numbers(v.get("mu"), v.get("sigma"))
        }
        if distributions:
            return GarakReference.Kind.CALIBRATION, distributions
    raise ValidationError(
        {
            "file": _(
                "Neither a garak calibration (probe/detector → mu, sigma) nor detector metrics."
            )
        }
    )


def _se_sp(value) -> dict | None:
    metrics = (value or {}).get("metrics") if isinstance(value, dict) else None
    se, sp = (metrics or {}).get("hit_sensitivity"), (metrics or {}).get("hit_specificity")
    if not _numbers(se, sp) or not (0 <= se <= 1 and 0 <= sp <= 1):
        return None
    return {"sensitivity": float(se), "specificity": float(sp)}


def _numbers(*values) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
