"""Pairwise queues: reviewers compare two outputs for the same input and pick A, B or tie.

Each reviewer sees an item's two sides in an order of their own, chosen when their slot is
first reserved and stored on it (`ReviewSlot.swapped`: B on the left), so a reload, a held
item coming back or an expired reservation taken again shows the same order, and position
bias averages out over reviewers and items. A label always names the underlying side (A is
the item's first experiment), never the position it was shown in: the review page posts
"left" / "right" and `pairwise_winner` turns them into sides with the slot's order.
"""

from __future__ import annotations

import hashlib

from django.utils.translation import gettext as _

from assay.vocabulary import PairOutcome

from ..models import (
    AnnotationQueue,
    ItemSource,
    QueueItem,
    QueueKind,
    ReviewSlot,
    ScoreConfig,
    ScoreKind,
)
from .configs import PAIR_LABELS

PAIR_SOURCES = (ItemSource.PAIRWISE_RESULT, ItemSource.EXPERIMENT_PAIR)
LEFT, RIGHT = "left", "right"


def pairwise_swapped(*, queue: AnnotationQueue, item: QueueItem, reviewer) -> bool:
    """Whether `reviewer` is to see B on the left of `item` (False outside pairwise queues).
    A hash of the item's random public id and the reviewer: as good as a coin per item and
    reviewer, and the same each time it is asked (the slot stores it all the same)."""
    if queue.kind != QueueKind.PAIRWISE:
        return False
    digest = hashlib.sha256(f"{item.public_id}:{reviewer.pk}".encode()).digest()
    return bool(digest[0] & 1)


def shown_sides(*, swapped: bool) -> tuple[str, str]:
    """The sides (A, B) as a reviewer sees them: (left, right)."""
    a, b = PAIR_LABELS[0], PAIR_LABELS[1]
    return (b, a) if swapped else (a, b)


def pairwise_winner(*, shown: str, swapped: bool) -> str | None:
    """The underlying side of a choice made on screen ("left", "right", "tie"; anything else is
    unknown): what a pairwise label stores."""
    left, right = shown_sides(swapped=swapped)
    return {LEFT: left, RIGHT: right, PairOutcome.TIE.value: PairOutcome.TIE.value}.get(shown)


def queue_kind_problems(
    *, queue: AnnotationQueue, configs: list[ScoreConfig | None] | None
) -> dict[str, list[str]]:
    """A pairwise queue asks at least one pairwise config; a queue of single outputs none (it
    has no sides to pick)."""
    if queue.kind not in QueueKind.values:
        return {"kind": [_("A queue is of single outputs or pairwise.")]}
    if configs is None:
        configs = list(queue.score_configs.all()) if queue.pk else []
    pairwise = [c for c in configs if c is not None and c.kind == ScoreKind.PAIRWISE]
    if queue.kind == QueueKind.PAIRWISE and configs and not pairwise:
        return {"score_configs": [_("A pairwise queue asks at least one A, B or tie config.")]}
    if queue.kind == QueueKind.SINGLE and pairwise:
        return {"score_configs": [_("A, B or tie configs are for pairwise queues.")]}
    return {}


def items_kind_problems(*, queue: AnnotationQueue, kinds: set[str]) -> dict[str, list[str]]:
    """Pairs go to pairwise queues, single outputs to the others."""
    pairs = {k for k in kinds if k in PAIR_SOURCES}
    if queue.kind == QueueKind.PAIRWISE and kinds - pairs:
        return {"queue": [_("A pairwise queue takes pairs: a pairwise run's or two experiments'.")]}
    if queue.kind == QueueKind.SINGLE and pairs:
        return {"queue": [_("Pairs go to a pairwise queue.")]}
    return {}


def pairwise_orders(*, queue: AnnotationQueue, items: list[QueueItem], reader) -> dict:
    """Item pk → the sides as `reader` is shown them, [left, right], for the pairwise items
    they hold a slot on (a read beside the writes: the order is the slot's)."""
    if queue.kind != QueueKind.PAIRWISE or reader is None or not reader.is_authenticated:
        return {}
    slots = ReviewSlot.objects.filter(item__in=items, reviewer=reader)
    return {
        item: list(shown_sides(swapped=swapped))
        for item, swapped in slots.values_list("item_id", "swapped")
    }


def reviewer_swapped(*, item: QueueItem, reviewer) -> bool:
    """The order `reviewer`'s slot on `item` shows (False when they hold none)."""
    slot = ReviewSlot.objects.filter(item=item, reviewer=reviewer).only("swapped").first()
    return bool(slot and slot.swapped)
