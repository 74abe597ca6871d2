"""Who reviews a queue: a role (editors and owners, or owners only) or only the members it is
assigned to. `annotation.filtered.queue_reviewer_is` reads it; reserving, labelling and
skipping are refused (403) to anyone else."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from ..models import AnnotationQueue, QueueAccess
from ..selectors import writers_named

MAX_ASSIGNEES = 100


def queue_assign(*, queue: AnnotationQueue, open_to: str, assignees: list[str]) -> AnnotationQueue:
    """Open the queue to a role, or assign it to named members (usernames of its workspace's
    editors and owners; at least one when `open_to` is "assigned"). Problems are named by
    field (`assignees[1]`) and nothing changes when there is one."""
    found, errors = writers_named(workspace=queue.workspace, usernames=assignees, field="assignees")
    if open_to not in QueueAccess.values:
        errors["open_to"] = [_("Open to reviewers, owners, or the assigned members.")]
    elif open_to == QueueAccess.ASSIGNED and not assignees:
        errors["assignees"] = [_("Name at least one member to assign the queue to.")]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        queue.open_to = open_to
        queue.save(update_fields=["open_to", "updated_at"])
        # a role's queue has no assignees: they would say who reviews and not be so
        assigned = open_to == QueueAccess.ASSIGNED
        queue.assignees.set(list(found.values()) if assigned else [])
    return queue
