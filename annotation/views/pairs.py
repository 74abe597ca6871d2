"""The pages' side of pairwise queues: what the review page shows of a pair (its two outputs
in the reviewer's own order, keys 1 left and 2 right), and the pages that make a queue (of
either kind) and add items to one from the sources the API takes (an evalset version's rows;
for pairwise queues a pairwise run's pairs or two experiments' outputs)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from assay.selectors import public_or_404
from assay.web.decorators import workspace_view

from .. import selectors, services
from ..models import AnnotationQueue, QueueItem, QueueKind
from ..selectors import pairs as pair_sources
from ..services.pairwise import LEFT, RIGHT, reviewer_swapped, shown_sides
from .pair_forms import PROBLEM_FIELDS, ItemsAddForm, QueueCreateForm, problems_shown


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


# ----------------------------------------------------------------------------- making a queue


@workspace_view()
@require_http_methods(["GET", "HEAD", "POST"])
def queue_new(request):
    """A new queue of either kind, with the workspace's score configs (editors)."""
    configs = list(selectors.score_configs_list(workspace=request.workspace))
    form = QueueCreateForm(request.POST or None, configs=configs)
    if request.method == "POST" and form.is_valid():
        chosen = [
            selectors.score_config_for(workspace=request.workspace, public_id=ref)
            for ref in form.cleaned_data["score_configs"]
        ]
        try:
            queue = services.annotation_queue_create(
                workspace=request.workspace,
                user=request.user,
                fields=form.settings(),
                score_configs=chosen,
            )
        except ValidationError as problems:
            problems_shown(form, problems.message_dict)
        else:
            messages.success(request, _("Queue made: add items to it."))
            return redirect(
                "annotation:items_add", ws=request.workspace.slug, queue_id=queue.public_id
            )
    context = {"form": form, "has_configs": bool(configs)}
    return render(request, "annotation/new.html", context, status=400 if form.errors else 200)


# ----------------------------------------------------------------------------- adding items


def _sources(queue: AnnotationQueue) -> list[tuple[str, str]]:
    if queue.kind == QueueKind.PAIRWISE:
        return [
            ("pairwise_run", _("Pairs a pairwise run judged")),
            ("experiments", _("Two experiments' outputs on the same rows")),
        ]
    return [("evalset_version", _("Rows of an evalset version"))]


@workspace_view()
@require_http_methods(["GET", "HEAD", "POST"])
def items_add(request, queue_id):
    """Add items to a queue from a source its kind takes (editors); other sources (results,
    traces, filters) are added from their own pages and the API."""
    queue = public_or_404(
        selectors.annotation_queues_list(workspace=request.workspace), queue_id, "queue"
    )
    choices = pair_sources.source_choices(workspace=request.workspace)
    form = ItemsAddForm(request.POST or None, sources=_sources(queue), choices=choices)
    if request.method == "POST" and form.is_valid():
        found = pair_sources.items_from_body(workspace=request.workspace, body=form.body())
        try:
            if "errors" in found:
                raise ValidationError(found["errors"])
            added = services.queue_items_add(queue=queue, items=found["items"])
        except ValidationError as problems:
            problems_shown(form, problems.message_dict, PROBLEM_FIELDS)
        else:
            message = ngettext("%(n)s item added.", "%(n)s items added.", added) % {"n": added}
            messages.success(request, message)
            return redirect("annotation:queue", ws=request.workspace.slug, queue_id=queue.public_id)
    context = {"queue": queue, "form": form}
    return render(request, "annotation/add_items.html", context, status=400 if form.errors else 200)
