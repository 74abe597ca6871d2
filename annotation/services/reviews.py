"""Reviewers at work: reserving the next item, labelling it, skipping it.

N-of-M is the server's: an item takes at most `reviewers_per_item` live slots (a label, or a
reservation not yet expired). Every change that makes a slot live happens with the item's row
locked (SELECT ... FOR UPDATE on PostgreSQL; SQLite writes one at a time), after counting its
live slots under that lock, so two reviewers racing for the last slot never both get it. A
reviewer has one slot per item (a unique key): nobody reviews an item twice.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from ..models import AnnotationQueue, ItemSource, Label, QueueItem, ReviewSlot, SlotStatus
from ..selectors import live
from ..selectors.filtered import TRAFFIC
from .configs import label_problem, label_stored
from .events import item_disagreement_announce
from .pairwise import pairwise_swapped

CANDIDATES = 20  # items looked at per try: the ones before are full or locked by others
ATTEMPTS = 5  # tries when other reviewers took every candidate first
MAX_SKIP_REASON = 2000
MAX_NOTE = 20_000


class SlotRefused(Exception):
    """The reviewer holds no slot on the item and cannot take one (full, or done already)."""


def review_next(*, queue: AnnotationQueue, reviewer: AbstractBaseUser) -> QueueItem | None:
    """The item the reviewer is to review now, reserved for them until the queue's expiry:
    the one they hold already, else the first item with a free slot they have not reviewed.
    None when there is none."""
    now = timezone.now()
    held = _held(queue, reviewer, now)
    if held is not None:
        return held
    for _attempt in range(ATTEMPTS):
        candidates = _candidates(queue, reviewer, now)
        for item in candidates:
            with transaction.atomic():
                if _slot_take(item, queue, reviewer, now):
                    return item
        if len(candidates) < CANDIDATES:
            return None  # every free item was looked at
    return None


def _held(queue, reviewer, now) -> QueueItem | None:
    slot = (
        ReviewSlot.objects.filter(
            item__queue=queue, reviewer=reviewer, status=SlotStatus.RESERVED, reserved_until__gt=now
        )
        .select_related("item")
        .first()
    )
    return None if slot is None else slot.item


def _candidates(queue, reviewer, now) -> list[QueueItem]:
    """Items with fewer live slots than the queue asks for that the reviewer has not labelled
    or skipped (an expired reservation of theirs may be taken again)."""
    finished = ReviewSlot.objects.filter(
        item=OuterRef("pk"), reviewer=reviewer, status__in=[SlotStatus.LABELLED, SlotStatus.SKIPPED]
    )
    live_slots = Count(
        "slots",
        filter=Q(slots__status=SlotStatus.LABELLED)
        | Q(slots__status=SlotStatus.RESERVED, slots__reserved_until__gt=now),
    )
    return list(
        queue.items.annotate(taken=live_slots)
        .filter(~Exists(finished), taken__lt=queue.reviewers_per_item)
        .order_by("id")[:CANDIDATES]
    )


def _slot_take(item: QueueItem, queue: AnnotationQueue, reviewer, now) -> bool:
    """Reserve a slot of `item` for `reviewer` if one is free (inside a transaction)."""
    QueueItem.objects.select_for_update().filter(pk=item.pk).first()  # the item's lock
    slots = ReviewSlot.objects.filter(item=item)
    mine = slots.filter(reviewer=reviewer).first()
    if mine is not None and (mine.status != SlotStatus.RESERVED):
        return False  # labelled or skipped by them already
    others = slots.filter(live(now)).exclude(reviewer=reviewer).count()
    if others >= queue.reviewers_per_item:
        return False
    until = now + timedelta(minutes=queue.reservation_minutes)
    if mine is None:
        swapped = pairwise_swapped(queue=queue, item=item, reviewer=reviewer)
        ReviewSlot.objects.create(
            item=item,
            reviewer=reviewer,
            status=SlotStatus.RESERVED,
            reserved_until=until,
            swapped=swapped,
        )
    else:
        ReviewSlot.objects.filter(pk=mine.pk).update(reserved_until=until)
    return True


def review_label(
    *, item: QueueItem, reviewer: AbstractBaseUser, values: dict, note: str = ""
) -> list[Label]:
    """Record the reviewer's labels on an item they hold (`values`: score config → value, one
    for each of the queue's configs; None means unknown). A reservation that expired still
    counts when its slot is free. Every problem is named by its field; nothing half-saved."""
    queue = item.queue
    errors = _values_problems(queue, values)
    if len(note) > MAX_NOTE:
        errors["note"] = [_("A note holds at most 20,000 characters.")]
    if errors:
        raise ValidationError(errors)
    now = timezone.now()
    with transaction.atomic():
        slot = _slot_for_finishing(item, queue, reviewer, now)
        labels = Label.objects.bulk_create(
            [
                Label(
                    item=item,
                    score_config=config,
                    reviewer=reviewer,
                    value=label_stored(config, value),
                    note=note,
                )
                for config, value in values.items()
            ]
        )
        _slot_finish(slot, SlotStatus.LABELLED, now)
        item_disagreement_announce(item=item)  # under the item's lock: once per item
    if _complete(item, queue):  # its gold label (if unanimous) may judge a judge now
        from .gold import gold_calibrations_refresh  # gold imports this module's errors

        gold_calibrations_refresh(queue=queue)
    return labels


# what a gold label can judge: an evaluator's result, or an online rule's verdict on a subject
CALIBRATING = (ItemSource.EXPERIMENT_RESULT, *TRAFFIC)


def _complete(item: QueueItem, queue: AnnotationQueue) -> bool:
    labelled = item.slots.filter(status=SlotStatus.LABELLED).count()
    return labelled >= queue.reviewers_per_item and item.source_kind in CALIBRATING


def review_skip(*, item: QueueItem, reviewer: AbstractBaseUser, reason: str) -> None:
    """The reviewer passes on an item they hold, saying why; its slot is free for another
    reviewer, and the item never comes back to them."""
    reason = (reason or "").strip()
    if not reason or len(reason) > MAX_SKIP_REASON:
        raise ValidationError({"reason": [_("Say why you skip it (at most 2,000 characters).")]})
    now = timezone.now()
    with transaction.atomic():
        slot = _slot_for_finishing(item, item.queue, reviewer, now)
        slot.skip_reason = reason
        _slot_finish(slot, SlotStatus.SKIPPED, now)


def _values_problems(queue: AnnotationQueue, values: dict) -> dict[str, list[str]]:
    configs = list(queue.score_configs.all())
    errors: dict[str, list[str]] = {}
    for config in configs:
        if config not in values:
            errors[f"values.{config.public_id}"] = [_("Give a label (null for unknown).")]
        else:
            problem = label_problem(config, values[config])
            if problem:
                errors[f"values.{config.public_id}"] = [problem]
    for config in values:
        if config is None or config not in configs:
            errors["values"] = [_("Label only this queue's score configs.")]
    return errors


def _slot_for_finishing(item: QueueItem, queue, reviewer, now) -> ReviewSlot:
    """The reviewer's reservation of the item, under the item's lock; an expired one is taken
    again if a slot is free. SlotRefused otherwise."""
    QueueItem.objects.select_for_update().filter(pk=item.pk).first()
    slot = ReviewSlot.objects.filter(item=item, reviewer=reviewer).first()
    if slot is None or slot.status != SlotStatus.RESERVED:
        raise SlotRefused(_("You hold no reservation of this item: ask for the next one."))
    if slot.reserved_until <= now:
        others = ReviewSlot.objects.filter(item=item).filter(live(now)).exclude(pk=slot.pk)
        if others.count() >= queue.reviewers_per_item:
            raise SlotRefused(_("Your reservation expired and the item went to another reviewer."))
    return slot


def _slot_finish(slot: ReviewSlot, status: str, now) -> None:
    slot.status, slot.finished_at = status, now
    slot.save(update_fields=["status", "finished_at", "skip_reason"])
