"""Writes of annotation queues: their settings and the items added to them."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from assay.models import Workspace
from experiments.results.calibration import gold_calibrations_drop

from ..models import MAX_REVIEWERS, AnnotationQueue, QueueItem, ScoreConfig
from ..selectors import SourceItem, writers_named
from .gold import gold_calibrations_refresh
from .pairwise import items_kind_problems, queue_kind_problems

QUEUE_SETTINGS = ("name", "kind", "reviewers_per_item", "reservation_minutes", "blind")
MAX_RESERVATION_MINUTES = 24 * 60
MAX_ITEMS_PER_CALL = 1000


def annotation_queue_create(
    *,
    workspace: Workspace,
    user: AbstractBaseUser | None,
    fields: dict,
    score_configs: list[ScoreConfig | None],
    adjudicators: list[str] | None = None,
) -> AnnotationQueue:
    """A new queue asking for its score configs (the workspace's: None stands for an id that
    is not one) and adjudicated by its named members (usernames) besides the owners; every
    problem is named by its field and nothing is saved."""
    queue = AnnotationQueue(workspace=workspace, created_by=user)
    return _queue_save(queue, fields, score_configs, adjudicators)


def annotation_queue_update(
    *,
    queue: AnnotationQueue,
    fields: dict,
    score_configs: list[ScoreConfig | None] | None,
    adjudicators: list[str] | None = None,
) -> AnnotationQueue:
    """Change a queue's settings; `score_configs` and `adjudicators`, when given, replace
    their lists. Its kind is fixed: its items and labels are of that kind."""
    if "kind" in fields and fields["kind"] != queue.kind:
        raise ValidationError({"kind": [_("A queue's kind cannot change: make a new one.")]})
    queue = _queue_save(queue, fields, score_configs, adjudicators)
    if score_configs is not None or "reviewers_per_item" in fields:  # gold labels may change
        gold_calibrations_refresh(queue=queue)
    return queue


def annotation_queue_delete(*, queue: AnnotationQueue) -> None:
    """Delete a queue with its items, slots and labels, and the judges' calibrations its gold
    labels made."""
    with transaction.atomic():
        gold_calibrations_drop(source_prefix=f"{queue.public_id}/")
        queue.delete()


def _adjudicators_found(queue: AnnotationQueue, usernames: list[str] | None):
    """(user ids of the named members, problems naming each name that is not a member)."""
    if usernames is None:
        return None, {}
    members, errors = writers_named(
        workspace=queue.workspace, usernames=usernames, field="adjudicators"
    )
    return list(members.values()), errors


def _queue_save(
    queue, fields: dict, configs: list | None, adjudicators: list[str] | None
) -> AnnotationQueue:
    for name in QUEUE_SETTINGS:
        if name in fields:
            setattr(queue, name, fields[name])
    queue.name = (queue.name or "").strip()
    judges, judge_errors = _adjudicators_found(queue, adjudicators)
    errors = _queue_problems(queue, configs) | judge_errors
    if errors:
        raise ValidationError(errors)
    try:
        with transaction.atomic():
            queue.save()
            if configs is not None:
                queue.score_configs.set(configs)
            if judges is not None:
                queue.adjudicators.set(judges)
    except IntegrityError:
        raise ValidationError({"name": [_("A queue of that name exists.")]}) from None
    return queue


def _queue_problems(queue: AnnotationQueue, configs: list | None) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if not queue.name:
        errors["name"] = [_("Give the queue a name.")]
    if not 1 <= queue.reviewers_per_item <= MAX_REVIEWERS:
        errors["reviewers_per_item"] = [_("From 1 to 10 reviewers per item.")]
    if not 1 <= queue.reservation_minutes <= MAX_RESERVATION_MINUTES:
        errors["reservation_minutes"] = [_("A reservation lasts from 1 minute to a day.")]
    if configs is not None and not configs:
        errors["score_configs"] = [_("A queue asks for at least one score config.")]
    for index, config in enumerate(configs or []):
        if config is None:
            errors[f"score_configs[{index}]"] = [_("No such score config in this workspace.")]
    return queue_kind_problems(queue=queue, configs=configs) | errors


def queue_items_add(*, queue: AnnotationQueue, items: list[SourceItem]) -> int:
    """Add items (their snapshots made by `annotation.snapshots`) to a queue; an item already
    in it is left as it is; pairs go only to a pairwise queue, single outputs only to the
    others. Returns how many were new."""
    errors = items_kind_problems(queue=queue, kinds={item.kind for item in items})
    if errors:
        raise ValidationError(errors)
    rows = [
        QueueItem(
            queue=queue,
            source_kind=item.kind,
            source_ref=item.ref,
            snapshot=item.snapshot,
            judge=item.judge,
        )
        for item in items
    ]
    before = queue.items.count()
    QueueItem.objects.bulk_create(rows, ignore_conflicts=True, batch_size=500)
    return queue.items.count() - before
