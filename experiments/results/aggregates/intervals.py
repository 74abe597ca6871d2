"""The intervals of one evaluator's summary: bootstrap over rows, or, with repetitions, over
items with all their repetitions (and the per-item numbers, pass@k and pass^k); per tag the
same way; the judge's sensitivity and specificity correct each one."""

from __future__ import annotations

from ...stats import bootstrap_ci, mean_ci
from ...stats.clustered import (
    clustered_mean_ci,
    clustered_rate_ci,
    item_totals,
    repetition_summary_of,
)
from ...stats.columns import RowColumns


def summary_intervals(
    columns: RowColumns, summary: dict, *, calibration: dict, settings: dict, repetitions: int
) -> dict:
    """fail_rate_ci, mean_ci and tag_fail_rate_ci (with repetitions also `interval` and
    `repetitions`) of the rows in `columns`, whose counts `summary` holds; none with the
    method `none`."""
    if settings["method"] == "none":
        return {"fail_rate_ci": None, "mean_ci": None, "interval": "none", "tag_fail_rate_ci": {}}
    if repetitions > 1:
        return {
            **_clustered(columns, calibration, repetitions, settings),
            "tag_fail_rate_ci": _clustered_tags(columns.tag_cells, calibration, settings),
        }
    return {
        **_row_intervals(columns, summary, calibration, settings),
        "tag_fail_rate_ci": tag_intervals_from_counts(
            summary["tags"], calibration=calibration, settings=settings
        ),
    }


def _resampling(settings: dict) -> dict:
    return {k: settings[k] for k in ("iterations", "confidence", "min_sample", "seed")}


def _row_intervals(columns: RowColumns, summary: dict, calibration: dict, settings: dict) -> dict:
    """Bootstrap intervals over rows (garak's own procedure with `exact_garak`)."""
    common = _resampling(settings)
    return {
        "fail_rate_ci": bootstrap_ci(
            summary["fails"],
            summary["passed"],
            sensitivity=calibration["sensitivity"],
            specificity=calibration["specificity"],
            exact_garak=settings["exact_garak"],
            **common,
        ),
        "mean_ci": mean_ci(columns.scores, **common),  # NaN (no score) is left out
    }


def _clustered(columns: RowColumns, calibration: dict, k: int, settings: dict) -> dict:
    """Intervals that resample items (all their repetitions together), and per-item numbers."""
    count = int(columns.items.max()) + 1 if columns.items.size else 0
    totals = item_totals(columns.items, count, columns.codes, columns.scores)
    common = _resampling(settings)
    return {
        "fail_rate_ci": clustered_rate_ci(
            totals.fails,
            totals.decided,
            sensitivity=calibration["sensitivity"],
            specificity=calibration["specificity"],
            **common,
        ),
        "mean_ci": clustered_mean_ci(totals.sums, totals.scored, **common),
        "interval": "clustered by item",
        "repetitions": repetition_summary_of(totals, k=k),
    }


def tag_intervals_from_counts(tags: dict, *, calibration: dict, settings: dict) -> dict:
    """Each tag's fail-rate interval from its counts, as the card's (same resampling settings,
    same correction for the judge's error), rows taken as independent. garak's exact
    resampling only matters for reproducing garak's own bounds, which have no per-tag
    counterpart, so tags always draw binomial counts (the same distribution, O(resamples))."""
    common = _resampling(settings)
    return {
        tag: bootstrap_ci(
            row["fails"],
            row["passed"],
            sensitivity=calibration.get("sensitivity", 1.0),
            specificity=calibration.get("specificity", 1.0),
            **common,
        )
        for tag, row in tags.items()
    }


def _clustered_tags(cells: dict, calibration: dict, settings: dict) -> dict:
    """Each tag's fail-rate interval resampling the tag's items with all their repetitions, as
    the card's interval does for the whole run (`cells`: tag → fails, decided per item)."""
    common = _resampling(settings)
    return {
        tag: clustered_rate_ci(
            fails,
            decided,
            sensitivity=calibration.get("sensitivity", 1.0),
            specificity=calibration.get("specificity", 1.0),
            **common,
        )
        for tag, (fails, decided) in cells.items()
    }


def garak_metrics(binding) -> dict | None:
    """Se/Sp of this detector from the workspace's garak detector-metrics file, if listed."""
    from ...models import GarakReference
    from ...selectors import garak_reference
    from ..garak import detector_name

    entries = garak_reference(
        workspace=binding.experiment.workspace, kind=GarakReference.Kind.DETECTOR_METRICS
    )
    found = entries.get(detector_name(binding))
    if found is None:
        return None
    return {**found, "applied": True, "source": "garak detector metrics"}


def calibration_of(binding) -> dict:
    """Se/Sp of the judge from its newest usable calibration; 1 and 1 (no correction) else."""
    from ..calibration import calibration_for

    found = calibration_for(binding)
    if found is None:
        return garak_metrics(binding) or {"sensitivity": 1.0, "specificity": 1.0, "applied": False}
    return {
        "sensitivity": found.sensitivity,
        "specificity": found.specificity,
        "applied": True,
        "n": found.n,
        "kappa": found.kappa,
        # not "source": a garak detector-metrics correction says that one (the card's words)
        "labels_from": found.source,
        "labels": found.labels,
        "experiment": found.experiment and str(found.experiment.public_id),
        "experiment_name": found.experiment and found.experiment.name,
    }
