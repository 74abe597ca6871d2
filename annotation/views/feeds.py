"""The queue page's feeds and assignment: what the page shows of them, and the forms that
follow a rule or an experiment, pause or stop a feed, and say who reviews the queue. They go
through the same services as the API (`services.feeds`, `services.assignment`)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.models import Membership
from assay.web.decorators import workspace_view
from assay.web.errors import error_lines
from experiments.selectors.runs import experiment_find, experiment_list
from online.selectors import online_rules_list

from .. import selectors
from ..models import AnnotationQueue, FeedKind, QueueAccess
from ..selectors import filtered
from ..services.assignment import queue_assign
from ..services.feeds import queue_feed_create, queue_feed_delete, queue_feed_update
from .feed_forms import EXPERIMENTS_OFFERED, AssignmentForm, FeedForm

FEED_ACTIONS = ("pause", "resume", "stop")


def review_allowed(request, queue: AnnotationQueue) -> bool:
    """The caller may reserve the queue's items (a role it is open to, or an assignee)."""
    return filtered.queue_reviewer_is(queue=queue, user=request.user, membership=request.membership)


def review_or_403(request, queue: AnnotationQueue) -> None:
    if not review_allowed(request, queue):
        raise PermissionDenied(_("This queue is assigned to other reviewers."))


def feeding_context(request, queue: AnnotationQueue) -> dict:
    """What the queue page shows of its feeds and who reviews it, and the forms for them
    (feeds: editors and owners; who reviews: owners)."""
    membership = request.membership
    assignees = sorted(queue.assignees.values_list("username", flat=True))
    return {
        "can_review": review_allowed(request, queue),
        "feeds": list(queue.feeds.select_related("rule", "experiment")),
        "feed_form": _feed_form(request.workspace) if membership.can_edit else None,
        "assignees": assignees,
        "assign_form": _assign_form(queue, assignees) if membership.is_owner else None,
    }


def _feed_form(workspace, data=None) -> FeedForm:
    rules = online_rules_list(workspace=workspace).order_by("name")
    experiments = experiment_list(workspace=workspace)[:EXPERIMENTS_OFFERED]
    return FeedForm(data, rules=rules, experiments=experiments)


def _members(queue: AnnotationQueue) -> list[str]:
    writers = queue.workspace.memberships.exclude(role=Membership.Role.VIEWER)
    return sorted(writers.values_list("user__username", flat=True))


def _assign_form(queue: AnnotationQueue, assignees: list[str], data=None) -> AssignmentForm:
    initial = {"open_to": queue.open_to, "assignees": assignees}
    return AssignmentForm(data, initial=initial, members=_members(queue))


def _queue(request, queue_id) -> AnnotationQueue:
    found = selectors.annotation_queues_list(workspace=request.workspace)
    queue = found.filter(public_id=queue_id).first()
    if queue is None:
        raise Http404(_("No such queue in this workspace."))
    return queue


def _back(request, queue: AnnotationQueue):
    url = redirect("annotation:queue", ws=request.workspace.slug, queue_id=queue.public_id)
    url["Location"] += "#queue-feeds"
    return url


def _problems(request, exc: ValidationError) -> None:
    messages.error(request, "; ".join(error_lines(exc)))


@workspace_view()
@require_POST
def feed_add(request, queue_id):
    """Follow the chosen rule or experiment (editors)."""
    queue = _queue(request, queue_id)
    form = _feed_form(request.workspace, request.POST)
    if not form.is_valid():
        _problems(request, ValidationError(form.errors))
        return _back(request, queue)
    kind, ref = form.source_parts()
    find = filtered.online_rule_find if kind == FeedKind.ONLINE_RULE else experiment_find
    fields = {
        "verdicts": form.cleaned_data["verdicts"],
        "sampling_rate": form.cleaned_data["percent"] / 100,
    }
    try:
        queue_feed_create(
            queue=queue,
            user=request.user,
            kind=kind,
            source=find(workspace=request.workspace, public_id=ref),
            fields=fields,
        )
    except ValidationError as exc:
        _problems(request, exc)
    else:
        messages.success(request, _("Followed: new items come at the next sweep."))
    return _back(request, queue)


@workspace_view()
@require_POST
def feed_change(request, queue_id, feed_id):
    """Pause, resume or stop a feed (editors); the items it added stay."""
    queue = _queue(request, queue_id)
    feed = queue.feeds.filter(public_id=feed_id).first()
    action = request.POST.get("action", "")
    if feed is None:
        raise Http404(_("No such feed of this queue."))
    if action not in FEED_ACTIONS:
        messages.error(request, _("Pause, resume or stop a feed."))
    elif action == "stop":
        queue_feed_delete(feed=feed)
    else:
        queue_feed_update(feed=feed, fields={"active": action == "resume"})
    return _back(request, queue)


@workspace_view(write_role=Membership.Role.OWNER)
@require_POST
def assignment_set(request, queue_id):
    """Open the queue to a role or assign it to members (owners)."""
    queue = _queue(request, queue_id)
    form = _assign_form(queue, [], request.POST)
    if not form.is_valid():
        _problems(request, ValidationError(form.errors))
        return _back(request, queue)
    open_to = form.cleaned_data["open_to"]
    names = form.cleaned_data["assignees"] if open_to == QueueAccess.ASSIGNED else []
    try:
        queue_assign(queue=queue, open_to=open_to, assignees=names)
    except ValidationError as exc:
        _problems(request, exc)
    else:
        messages.success(request, _("Saved who reviews this queue."))
    return _back(request, queue)
