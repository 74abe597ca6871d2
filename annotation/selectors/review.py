"""Reads of the review page beyond an item's snapshot: where the item came from, while its
source is still stored (results and traces may go; the snapshot stays). A trace item's span
tree, drawn as the trace page draws it; an experiment result's run and the target's
trajectory, which the evaluator's turn holds only when it mapped it."""

from __future__ import annotations

from assay.models import Workspace
from experiments.models import Result, TargetResult
from traces.models import Span
from traces.selectors import span_rows

from ..models import ItemSource, QueueItem

MAX_SPANS_SHOWN = 200  # a review shows the start of a very long trace, and says so


def item_source(*, workspace: Workspace, item: QueueItem) -> dict:
    """What the page shows of the item's source: {"trace": id, "rows", "spans"} for a trace
    (rows: its first spans as a tree), {"experiment": id, "row", "trajectory"} for a result;
    {} when the source is gone or of another kind."""
    if item.source_kind == ItemSource.TRACE:
        return _trace_source(workspace, item.source_ref)
    if item.source_kind == ItemSource.EXPERIMENT_RESULT and item.source_ref.isdigit():
        return _result_source(workspace, int(item.source_ref))
    return {}


def _trace_source(workspace: Workspace, trace_id: str) -> dict:
    spans = Span.objects.filter(workspace=workspace, trace_id=trace_id)
    shown = list(spans.order_by("start_time", "span_id")[:MAX_SPANS_SHOWN])
    if not shown:
        return {}
    total = len(shown) if len(shown) < MAX_SPANS_SHOWN else spans.count()
    return {"trace": trace_id, "rows": span_rows(shown), "spans": total}


def _result_source(workspace: Workspace, result_id: int) -> dict:
    result = (
        Result.objects.filter(pk=result_id, experiment__workspace=workspace)
        .select_related("experiment")
        .only("item_id", "repeat", "position", "experiment__public_id")
        .first()
    )
    if result is None:
        return {}
    trajectory = (
        TargetResult.objects.filter(
            experiment_id=result.experiment_id, item_id=result.item_id, repeat=result.repeat
        )
        .values_list("trajectory", flat=True)
        .first()
    )
    return {
        "experiment": result.experiment.public_id,
        "row": result.row_number,
        "trajectory": trajectory,
    }
