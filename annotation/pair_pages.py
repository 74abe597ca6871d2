"""The pages' side of pairwise queues: what the review page shows of a pair (its two outputs
in the reviewer's own order, keys 1 left and 2 right), and the pages that make a queue (of
either kind) and add items to one from the sources the API takes (an evalset version's rows;
for pairwise queues a pairwise run's pairs or two experiments' outputs)."""

from __future__ import annotations

from .models import AnnotationQueue, QueueItem, QueueKind
from .services.pairwise import LEFT, RIGHT, reviewer_swapped, shown_sides


def pair_context(*, queue: AnnotationQueue, item: QueueItem | None, reviewer) -> dict:
    """For a pairwise item, `pair`: both sides as the reviewer sees them (left, right) and,
    outside blind mode, the judge's pick by place; the page's own judge list stays empty (it
    would name sides, A and B, the reviewer is not shown). {} for any other item."""
    if item is None or queue.kind != QueueKind.PAIRWISE:
        return {}
    swapped = reviewer_swapped(item=item, reviewer=reviewer)
    places = dict(zip(shown_sides(swapped=swapped), (LEFT, RIGHT), strict=True))
    sides = [
        {"place": place, "key": key, "output": item.snapshot.get(f"output_{side.lower()}")}
        for key, (side, place) in enumerate(places.items(), start=1)
    ]
    judges = [] if queue.blind else [_judge_pick(j, places) for j in item.judge or []]
    return {"pair": {"sides": sides, "judges": judges}, "judge": None}


def _judge_pick(entry: dict, places: dict) -> dict:
    """A pairwise judge's outcome said by place: "left", "right", "tie" or "unknown"."""
    outcome = entry.get("outcome")
    return {**entry, "pick": places.get(outcome, outcome if outcome == "tie" else "unknown")}
