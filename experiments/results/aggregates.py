"""Per (experiment, evaluator) numbers for the dashboard, stored so a page reads one row."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import transaction

from assay.vocabulary import Verdict

from ..models import Aggregate, Experiment, Result
from ..stats import bootstrap_ci, mean_ci, summarize
from ..stats.clustered import clustered_mean_ci, clustered_rate_ci, repetition_summary
from ..stats.interval_settings import interval_settings
from ..stats.usage import usage_summary
from .per_turn import per_turn_rows


def aggregates_refresh(*, experiment: Experiment, binding_ids: list[int] | None = None) -> None:
    """Recompute the aggregates (all bindings, or the given ones) from the results, and the
    target's usage."""
    bindings = experiment.bindings.select_related("evaluator_version")
    if binding_ids is not None:
        bindings = bindings.filter(pk__in=binding_ids)
    for binding in bindings:
        summary = binding_summary(experiment=experiment, binding=binding)
        with transaction.atomic():
            Aggregate.objects.update_or_create(
                binding=binding, defaults={"experiment": experiment, "summary": summary}
            )
    if binding_ids is None:
        experiment.target_summary = target_summary(experiment=experiment)
        experiment.save(update_fields=["target_summary"])


ROW_FIELDS = (
    "score human_score verdict human_verdict tags status item_id latency_ms tokens_in "
    "tokens_out cost"
).split()


@dataclass
class _Rows:
    """One evaluator's results as columns (human corrections applied)."""

    scores: list = field(default_factory=list)
    verdicts: list = field(default_factory=list)
    tags: list = field(default_factory=list)
    items: list = field(default_factory=list)
    statuses: dict = field(default_factory=dict)
    latencies: list = field(default_factory=list)
    tokens_in: list = field(default_factory=list)
    tokens_out: list = field(default_factory=list)
    costs: list = field(default_factory=list)

    def add(self, row: dict) -> None:
        corrected = row["human_verdict"] and row["human_score"] is not None
        self.scores.append(row["human_score"] if corrected else row["score"])
        self.verdicts.append(row["human_verdict"] or row["verdict"])
        self.tags.append(row["tags"] or [])
        self.items.append(row["item_id"])
        self.statuses[row["status"]] = self.statuses.get(row["status"], 0) + 1
        self.latencies.append(row["latency_ms"])
        self.tokens_in.append(row["tokens_in"])
        self.tokens_out.append(row["tokens_out"])
        self.costs.append(row["cost"])


def binding_summary(*, experiment: Experiment, binding) -> dict:
    """Counts, rates with CIs, mean with CI, histogram, tags, status counts and usage of one
    evaluator; with repetitions, intervals clustered by item and pass@k / pass^k; scored per
    assistant turn, all of it over the rows' aggregated turns, and the turns' own numbers."""
    rows = _Rows()
    results = Result.objects.filter(experiment=experiment, binding=binding)
    settings = interval_settings(experiment.interval)
    values, per_turn = _row_values(results, binding, settings)
    for row in values:
        rows.add(row)
    summary = summarize(rows.scores, rows.verdicts, rows.tags).to_dict()
    calibration = _calibration(binding)
    if settings["method"] == "none":
        summary.update(fail_rate_ci=None, mean_ci=None, interval="none", tag_fail_rate_ci={})
    elif experiment.repetitions > 1:
        summary.update(_clustered(rows, calibration, experiment.repetitions, settings))
        summary["tag_fail_rate_ci"] = _clustered_tag_intervals(rows, calibration, settings)
    else:
        summary.update(_row_intervals(rows, summary, calibration, settings))
        summary["tag_fail_rate_ci"] = tag_intervals_from_counts(
            summary["tags"], calibration=calibration, settings=settings
        )
    summary["interval_settings"] = settings
    summary["confidence"] = settings["confidence"]
    summary["statuses"] = rows.statuses
    summary["calibration"] = calibration
    summary["usage"] = usage_summary(
        latencies_ms=rows.latencies,
        tokens_in=rows.tokens_in,
        tokens_out=rows.tokens_out,
        costs=rows.costs,
    )
    summary["corrected"] = results.exclude(human_verdict="").count()
    if per_turn is not None:
        summary["per_turn"] = per_turn
    return summary


def _row_values(results, binding, settings: dict):
    """The results as rows; a per-turn binding's turns become one row per item and repetition
    (and its turn-level summary comes with them)."""
    if not binding.per_turn:
        return results.values(*ROW_FIELDS).iterator(10000), None
    return per_turn_rows(results, binding=binding, settings=settings)


def _resampling(settings: dict) -> dict:
    return {k: settings[k] for k in ("iterations", "confidence", "min_sample", "seed")}


def _row_intervals(rows: _Rows, summary: dict, calibration: dict, settings: dict) -> dict:
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
        "mean_ci": mean_ci([s for s in rows.scores if s is not None], **common),
    }


def _clustered(rows: _Rows, calibration: dict, k: int, settings: dict) -> dict:
    """Intervals that resample items (all their repetitions together), and per-item numbers."""
    fails, decided, sums, counts = {}, {}, {}, {}
    for item, verdict, score in zip(rows.items, rows.verdicts, rows.scores, strict=True):
        decided[item] = decided.get(item, 0) + (verdict != Verdict.UNKNOWN)
        fails[item] = fails.get(item, 0) + (verdict == Verdict.FAIL)
        if score is not None:
            sums[item], counts[item] = sums.get(item, 0.0) + score, counts.get(item, 0) + 1
    keys = list(decided)
    common = _resampling(settings)
    return {
        "fail_rate_ci": clustered_rate_ci(
            [fails[i] for i in keys],
            [decided[i] for i in keys],
            sensitivity=calibration["sensitivity"],
            specificity=calibration["specificity"],
            **common,
        ),
        "mean_ci": clustered_mean_ci(
            [sums.get(i, 0.0) for i in keys], [counts.get(i, 0) for i in keys], **common
        ),
        "interval": "clustered by item",
        "repetitions": repetition_summary(rows.items, rows.verdicts, rows.scores, k=k),
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


def _clustered_tag_intervals(rows: _Rows, calibration: dict, settings: dict) -> dict:
    """Each tag's fail-rate interval resampling the tag's items with all their repetitions, as
    the card's interval does for the whole run."""
    cells: dict[str, dict] = {}  # tag -> item -> [fails, decided]
    for item, verdict, tags in zip(rows.items, rows.verdicts, rows.tags, strict=True):
        if verdict == Verdict.UNKNOWN:
            continue
        for tag in dict.fromkeys((tags,) if isinstance(tags, str) else tags):
            cell = cells.setdefault(tag, {}).setdefault(item, [0, 0])
            cell[0] += verdict == Verdict.FAIL
            cell[1] += 1
    common = _resampling(settings)
    return {
        tag: clustered_rate_ci(
            [c[0] for c in by_item.values()],
            [c[1] for c in by_item.values()],
            sensitivity=calibration.get("sensitivity", 1.0),
            specificity=calibration.get("specificity", 1.0),
            **common,
        )
        for tag, by_item in sorted(cells.items())
    }


def target_summary(*, experiment: Experiment) -> dict:
    """How the target's rows went: status counts and usage (latency, tokens, cost)."""
    if not experiment.target_spec.produces_output:
        return {}
    statuses: dict[str, int] = {}
    columns = {k: [] for k in ("latency_ms", "tokens_in", "tokens_out", "cost")}
    rows = experiment.target_results.values("status", *columns).iterator(10000)
    for row in rows:
        statuses[row["status"]] = statuses.get(row["status"], 0) + 1
        for key, values in columns.items():
            values.append(row[key])
    usage = usage_summary(
        latencies_ms=columns["latency_ms"],
        tokens_in=columns["tokens_in"],
        tokens_out=columns["tokens_out"],
        costs=columns["cost"],
    )
    summary = {"statuses": statuses, "usage": usage}
    if experiment.outputs_from_id:
        origin = experiment.outputs_from
        summary |= {"outputs_from": str(origin.public_id), "outputs_from_name": origin.name}
    return summary


def _garak_metrics(binding) -> dict | None:
    """Se/Sp of this detector from the workspace's garak detector-metrics file, if listed."""
    from ..models import GarakReference
    from ..selectors import garak_reference
    from .garak import detector_name

    entries = garak_reference(
        workspace=binding.experiment.workspace, kind=GarakReference.Kind.DETECTOR_METRICS
    )
    found = entries.get(detector_name(binding))
    if found is None:
        return None
    return {**found, "applied": True, "source": "garak detector metrics"}


def _calibration(binding) -> dict:
    """Se/Sp of the judge from its newest usable calibration; 1 and 1 (no correction) else."""
    from .calibration import calibration_for

    found = calibration_for(binding)
    if found is None:
        return _garak_metrics(binding) or {"sensitivity": 1.0, "specificity": 1.0, "applied": False}
    return {
        "sensitivity": found.sensitivity,
        "specificity": found.specificity,
        "applied": True,
        "n": found.n,
        "kappa": found.kappa,
        "experiment": str(found.experiment.public_id),
        "experiment_name": found.experiment.name,
    }
