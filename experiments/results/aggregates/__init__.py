"""Per (experiment, evaluator) numbers for the dashboard, stored so a page reads one row.

Memory stays flat in the number of results: counts come from the database and only the
values a row is needed for are read, into compact numpy arrays (`reads`); the intervals are
in `intervals`. The package: `reads` (results → `RowColumns`), `intervals`, and this module
(the refresh, one binding's summary, the target's).
"""

from __future__ import annotations

import numpy as np
from django.db import transaction
from django.db.models import Count, Min, Sum

from ...models import Aggregate, Experiment, Result
from ...stats.columns import columns_of
from ...stats.interval_settings import interval_settings
from ...stats.summary import summary_of
from ...stats.usage import usage_of
from .intervals import calibration_of, summary_intervals, tag_intervals_from_counts
from .reads import result_columns, row_chunks

__all__ = ["aggregates_refresh", "binding_summary", "tag_intervals_from_counts", "target_summary"]


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


def binding_summary(*, experiment: Experiment, binding) -> dict:
    """Counts, rates with CIs, mean with CI, histogram, tags, status counts and usage of one
    evaluator; with repetitions, intervals clustered by item and pass@k / pass^k; scored per
    assistant turn, all of it over the rows' aggregated turns, and the turns' own numbers."""
    settings = interval_settings(experiment.interval)
    columns, per_turn = _columns(experiment, binding, settings)
    summary = summary_of(counts=columns.counts, scores=columns.scores, tags=columns.tags)
    summary = summary.to_dict()
    calibration = calibration_of(binding)
    summary.update(
        summary_intervals(
            columns,
            summary,
            calibration=calibration,
            settings=settings,
            repetitions=experiment.repetitions,
        )
    )
    summary["interval_settings"] = settings
    summary["confidence"] = settings["confidence"]
    summary["statuses"] = columns.statuses
    summary["calibration"] = calibration
    summary["usage"] = usage_of(
        latencies_ms=columns.latencies,
        tokens_in=columns.tokens_in,
        tokens_out=columns.tokens_out,
        costs=columns.costs,
    )
    summary["corrected"] = columns.corrected
    if per_turn is not None:
        summary["per_turn"] = per_turn
    return summary


def _columns(experiment: Experiment, binding, settings: dict):
    """The binding's rows as `RowColumns` (each row's item only where intervals cluster by
    item), and a per-turn binding's turn-level summary (None for the others)."""
    results = Result.objects.filter(experiment=experiment, binding=binding)
    clustered = experiment.repetitions > 1 and settings["method"] != "none"
    if not binding.per_turn:
        return result_columns(results, clustered=clustered), None
    # imported here: per_turn reads with this package's expressions (`reads`)
    from ..per_turn import per_turn_columns

    return per_turn_columns(results, binding=binding, settings=settings, clustered=clustered)


def target_summary(*, experiment: Experiment) -> dict:
    """How the target's rows went: status counts and usage (latency, tokens, cost)."""
    if not experiment.target_spec.produces_output:
        return {}
    rows = experiment.target_results.order_by()
    statuses, tokens_in, tokens_out = _target_counts(rows)
    values = rows.values_list("latency_ms", "cost")
    latencies, costs = columns_of(row_chunks(values), (np.float64, np.float64))
    usage = usage_of(
        latencies_ms=latencies, tokens_in=tokens_in, tokens_out=tokens_out, costs=costs
    )
    summary = {"statuses": statuses, "usage": usage}
    if experiment.outputs_from_id:  # a re-score: what its figures are, said where they are read
        origin = experiment.outputs_from
        summary |= {
            "outputs_from": str(origin.public_id),
            "outputs_from_name": origin.name,
            "reused_from_source": ["outputs", "latency_ms"],
            "calls_made": 0,
        }
    return summary


def _target_counts(rows) -> tuple[dict[str, int], int, int]:
    """Rows per status (in the order of their first row) and the token totals."""
    groups = (
        rows.values("status")
        .annotate(first=Min("pk"), n=Count("pk"), t_in=Sum("tokens_in"), t_out=Sum("tokens_out"))
        .order_by("first")
    )
    statuses, tokens_in, tokens_out = {}, 0, 0
    for group in groups:
        statuses[group["status"]] = group["n"]
        tokens_in += group["t_in"] or 0
        tokens_out += group["t_out"] or 0
    return statuses, tokens_in, tokens_out
