"""The annotation pages, under /w/<workspace>/annotation/: the queues' list, a queue's page
(configs, progress, and for owners the reviewers' agreement) and the review page.

The review page works through the same services as the API: showing it reserves the
reviewer's next item (`review_next`, N-of-M enforced there), its form labels or skips it
(`review_label`, `review_skip`). It is a plain form; static/js/annotation-review.js adds keys."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from assay.web.decorators import workspace_view

from .. import selectors, services
from ..models import AnnotationQueue, QueueItem, ScoreKind
from ..selectors import review as review_selectors
from ..services.pairwise import reviewer_swapped
from . import rendering
from .feeds import feeding_context, review_allowed, review_or_403
from .forms import UNKNOWN, ReviewForm, SkipForm, config_choices, field_name
from .pairs import pair_context

CHOICE_KINDS = (ScoreKind.BOOLEAN, ScoreKind.CATEGORICAL, ScoreKind.PAIRWISE)


@workspace_view()
def queue_list(request):
    """Every queue of the workspace with its settings and progress."""
    queues = selectors.annotation_queues_list(workspace=request.workspace)
    rows = [{"queue": q, "progress": selectors.queue_progress(queue=q)} for q in queues]
    return render(request, "annotation/list.html", {"rows": rows})


def _queue(request, queue_id) -> AnnotationQueue:
    queue = selectors.annotation_queues_list(workspace=request.workspace)
    found = queue.filter(public_id=queue_id).first()
    if found is None:
        raise Http404(_("No such queue in this workspace."))
    return found


@workspace_view()
@require_safe
def queue_detail(request, queue_id):
    """A queue's configs, settings and progress per reviewer; its agreement for owners."""
    queue = _queue(request, queue_id)
    owner = request.membership.is_owner
    adjudicator = selectors.queue_adjudicator_is(
        queue=queue, user=request.user, membership=request.membership
    )
    context = {
        "adjudicator": adjudicator,
        "waiting": len(selectors.queue_disagreements(queue=queue)) if adjudicator else 0,
        "queue": queue,
        "configs": list(queue.score_configs.order_by("name")),
        "progress": selectors.queue_progress(queue=queue),
        "agreement": selectors.queue_agreement(queue=queue) if owner else None,
    }
    context |= feeding_context(request, queue)
    return render(request, "annotation/detail.html", context)


@workspace_view()
@require_http_methods(["GET", "HEAD", "POST"])
def review(request, queue_id):
    """GET: the reviewer's next item (held, or newly reserved) beside its score form. POST:
    label or skip it, then on to the next. Viewers read that they cannot review."""
    queue = _queue(request, queue_id)
    if request.method == "POST":
        review_or_403(request, queue)
        return _review_post(request, queue)
    if not review_allowed(request, queue):
        return _review_page(request, queue, item=None)
    item = services.review_next(queue=queue, reviewer=request.user)
    return _review_page(request, queue, item=item)


def _review_post(request, queue: AnnotationQueue):
    item = _posted_item(queue, request.POST.get("item", ""))
    if item is None:  # another queue's item, or none: nothing is written
        messages.error(request, _("No such item in this queue."))
        return redirect("annotation:review", ws=request.workspace.slug, queue_id=queue.public_id)
    skipping = "skip" in request.POST
    form = SkipForm(request.POST) if skipping else _review_form(request, queue, item, request.POST)
    if not form.is_valid():
        return _review_page(request, queue, item=item, form=form, status=400)
    try:
        _review_write(request, item, form)
    except services.SlotRefused as refused:  # the API's 409: the reservation was lost
        messages.error(request, str(refused))
        following = services.review_next(queue=queue, reviewer=request.user)
        return _review_page(request, queue, item=following, status=409)
    except ValidationError as problems:
        form.add_service_errors(problems.message_dict)
        return _review_page(request, queue, item=item, form=form, status=400)
    messages.success(request, _("Skipped.") if skipping else _("Saved."))
    return redirect("annotation:review", ws=request.workspace.slug, queue_id=queue.public_id)


def _review_write(request, item: QueueItem, form) -> None:
    data = form.cleaned_data
    if isinstance(form, SkipForm):
        services.review_skip(item=item, reviewer=request.user, reason=data["reason"])
    else:
        services.review_label(
            item=item, reviewer=request.user, values=form.values(), note=data["note"]
        )


def _posted_item(queue: AnnotationQueue, raw: str) -> QueueItem | None:
    try:
        return selectors.queue_item_get(queue=queue, public_id=uuid.UUID(raw))
    except ValueError:
        return None


def _configs(queue: AnnotationQueue) -> list:
    return list(queue.score_configs.order_by("name"))


def _review_page(request, queue, *, item, form=None, status=200):
    """The item beside its score form (`form` when it comes back with problems)."""
    configs = _configs(queue)
    if item is not None and not isinstance(form, ReviewForm):
        skip_form = form
        form = _review_form(request, queue, item, None)
    else:
        skip_form = None
    context = {
        "queue": queue,
        "item": item,
        "can_review": review_allowed(request, queue),
        "form": form,
        "skip_form": skip_form,
        "fields": [config_field(form, c) for c in configs] if item is not None else [],
        **_item_shown(request.workspace, queue, item),
        "judge": None if item is None or queue.blind else item.judge,
        "others": _others(queue, item, request.user),
        "progress": _my_progress(queue, request.user),
        **pair_context(queue=queue, item=item, reviewer=request.user),
    }
    return render(request, "annotation/review.html", context, status=status)


def _review_form(request, queue: AnnotationQueue, item: QueueItem, data) -> ReviewForm:
    """The item's score form; a pair's choices are places, read in the reviewer's order."""
    swapped = reviewer_swapped(item=item, reviewer=request.user)
    initial = {"item": item.public_id}
    return ReviewForm(data, initial=initial, configs=_configs(queue), swapped=swapped)


def _my_progress(queue: AnnotationQueue, reader) -> dict:
    """The queue's items done, and the reader's own labelled and skipped items."""
    progress = selectors.queue_progress(queue=queue)
    mine = [r for r in progress["reviewers"] if r["reviewer"] == reader.get_username()]
    return {**progress, "mine": mine[0] if mine else {"labelled": 0, "skipped": 0}}


def config_field(form: ReviewForm, config, *, known_only: bool = False) -> dict:
    """What the template shows of a config's field: its choices numbered for keys 1-9;
    `known_only` leaves out "unknown" (an adjudicator's final label is known)."""
    bound = form[field_name(config)]
    chosen = str(bound.value() or "")
    choices = config_choices(config) if config.kind in CHOICE_KINDS else []
    shown = [(v, label) for v, label in choices if not (known_only and v == UNKNOWN)]
    return {
        "config": config,
        "name": field_name(config),
        "bound": bound,
        "choices": [
            {"key": i + 1, "value": v, "label": label, "checked": v == chosen}
            for i, (v, label) in enumerate(shown)
        ],
    }


_snapshot = rendering.snapshot_parts  # the adjudication page shows items the same way


def _item_shown(workspace, queue: AnnotationQueue, item: QueueItem | None) -> dict:
    """The snapshot's parts and what is still stored of the item's source (a trace's spans,
    the target's trajectory); a blind queue shows no way back to the source (its verdicts)."""
    if item is None:
        return {"snapshot": None, "source": {}}
    parts = rendering.snapshot_parts(item.snapshot)
    source = review_selectors.item_source(workspace=workspace, item=item)
    if parts["trajectory"] is None:
        parts["trajectory"] = rendering.trajectory_steps(source.get("trajectory"))
    return {"snapshot": parts, "source": source}


def _others(queue, item, reader) -> list:
    """Other reviewers' labels on the item: none in a blind queue."""
    if item is None or queue.blind:
        return []
    labels = selectors.items_labels(items=[item])[item.pk]
    return [label for label in labels if label.reviewer_id != reader.pk]
