"""The gold-label pages under /w/<workspace>/annotation/<queue>/.

`adjudicate/`: the queue's disagreements (every label of every reviewer, blind queue or not,
and the judges' verdicts) and a form that settles one item through `item_adjudicate`, as the
API's adjudicate does. Only adjudicators (owners, and members the queue names) see it: it
shows every label, which a blind queue hides from its reviewers; anyone else gets 403,
outsiders 404. static/js/annotation-adjudicate.js adds the keys (1-9, j/k, Enter, n).

`calibration/`: the judges' calibrations from the queue's gold labels (every member reads
them), the items where a judge and the gold label disagree with a button that makes each a
test case of the evaluator, and a button that exports a config's gold items to an evaluation
set version (editors: `services.teach`)."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from assay.web.decorators import workspace_view
from experiments.selectors.calibrations import gold_calibrations

from .. import selectors, services
from ..models import AnnotationQueue
from ..selectors import gold as gold_selectors
from ..services.teach import gold_evalset_export, judge_miss_test_case
from .forms import ReviewForm
from .review import _item_shown, _queue, config_field

MAX_LISTED = 200  # waiting items linked from the page (the count says how many there are)


@workspace_view()
@require_http_methods(["GET", "HEAD", "POST"])
def adjudicate(request, queue_id):
    """GET: the waiting items and one of them (`?item=`, else the first) with every label
    beside a form of its disputed configs. POST: settle it, then on to the next."""
    queue = _queue(request, queue_id)
    if not selectors.queue_adjudicator_is(
        queue=queue, user=request.user, membership=request.membership
    ):
        raise PermissionDenied(_("Only owners and the queue's adjudicators adjudicate."))
    waiting = selectors.queue_disagreements(queue=queue)
    if request.method == "POST":
        return _adjudicate_post(request, queue, waiting)
    chosen = _chosen(waiting, request.GET.get("item", ""))
    return _adjudicate_page(request, queue, waiting, chosen)


def _chosen(waiting: list, raw: str):
    """The waiting (item, configs) of id `raw`, else the first; None when nothing waits."""
    for entry in waiting:
        if str(entry[0].public_id) == raw:
            return entry
    return waiting[0] if waiting else None


def _adjudicate_post(request, queue: AnnotationQueue, waiting: list):
    raw = request.POST.get("item", "")
    chosen = next((e for e in waiting if str(e[0].public_id) == _uuid_text(raw)), None)
    if chosen is None:  # settled meanwhile, another queue's, or none: nothing is written
        messages.error(request, _("This item is not waiting for adjudication."))
        return _back(request, queue)
    item, configs = chosen
    form = ReviewForm(request.POST, configs=configs)
    if form.is_valid():
        try:
            services.item_adjudicate(
                item=item,
                adjudicator=request.user,
                values=form.values(),
                note=form.cleaned_data["note"],
            )
        except ValidationError as problems:
            form.add_service_errors(problems.message_dict)
        except services.SlotRefused as refused:
            messages.error(request, str(refused))
            return _back(request, queue)
        else:
            messages.success(request, _("Settled."))
            return _back(request, queue, after=item, waiting=waiting)
    return _adjudicate_page(request, queue, waiting, chosen, form=form, status=400)


def _uuid_text(raw: str) -> str:
    try:
        return str(uuid.UUID(raw))
    except ValueError:
        return ""


def _back(request, queue: AnnotationQueue, *, after=None, waiting=()):
    """The page again: at the item that waited after `after` (the first one otherwise)."""
    url = reverse(
        "annotation:adjudicate", kwargs={"ws": request.workspace.slug, "queue_id": queue.public_id}
    )
    ids = [w.pk for w, _c in waiting]
    if after is not None and after.pk in ids and len(ids) > 1:
        following = waiting[(ids.index(after.pk) + 1) % len(ids)][0]
        url += f"?item={following.public_id}"
    return redirect(url)


def _adjudicate_page(request, queue, waiting, chosen, *, form=None, status=200):
    context = {
        "queue": queue,
        "waiting": [item for item, _configs in waiting[:MAX_LISTED]],
        "waiting_count": len(waiting),
        "item": chosen[0] if chosen else None,
    }
    if chosen is not None:
        item, configs = chosen
        position = next(i for i, (w, _c) in enumerate(waiting) if w.pk == item.pk)
        form = form or ReviewForm(initial={"item": item.public_id}, configs=configs)
        context |= {
            "form": form,
            "fields": [config_field(form, c, known_only=True) for c in configs],
            **_item_shown(request.workspace, queue, item),  # as reviewers see it
            "judge": item.judge,
            "labels": _labels_table(queue, item),
            "position": position + 1,
            "following": waiting[(position + 1) % len(waiting)][0] if len(waiting) > 1 else None,
        }
    return render(request, "annotation/adjudicate.html", context, status=status)


def _cell(values: dict, config) -> dict:
    """A reviewer's label of a config: given or not (a free text may be left), and its value."""
    return {"given": config.pk in values, "value": values.get(config.pk)}


def _labels_table(queue: AnnotationQueue, item) -> dict:
    """Every reviewer's labels on the item: configs (columns) and one row per reviewer with
    their value per config and their note."""
    configs = list(queue.score_configs.order_by("name"))
    rows: dict[str, dict] = {}
    for label in selectors.items_labels(items=[item])[item.pk]:
        row = rows.setdefault(label.reviewer.username, {"values": {}, "notes": []})
        row["values"][label.score_config_id] = label.value
        if label.note and label.note not in row["notes"]:
            row["notes"].append(label.note)
    return {
        "configs": configs,
        "rows": [
            {
                "reviewer": name,
                "cells": [_cell(row["values"], c) for c in configs],
                "notes": row["notes"],
            }
            for name, row in sorted(rows.items())
        ],
    }


# ----------------------------------------------------------------------------- calibration


@workspace_view()
@require_safe
def calibration(request, queue_id):
    """The judges' calibrations from the queue's gold labels (the reviewers' alpha beside
    each judge's kappa), the items where a judge and the gold label disagree, and the
    buttons that make them test cases and the gold items an evaluation set version."""
    queue = _queue(request, queue_id)
    configs = gold_selectors.verdict_configs(queue=queue)
    context = {
        "queue": queue,
        "calibrations": gold_calibrations(source_prefix=f"{queue.public_id}/"),
        "misses": [
            (config, gold_selectors.judge_misses(queue=queue, config=config)[:MAX_LISTED])
            for config in configs
        ],
        "export_configs": selectors.comparable_configs(queue=queue),
    }
    return render(request, "annotation/calibration.html", context)


@workspace_view()
@require_POST
def test_case(request, queue_id, queue_item_id):
    """The button: an item where the judge and the gold label disagree → a test case."""
    queue = _queue(request, queue_id)
    item = selectors.queue_item_get(queue=queue, public_id=queue_item_id)
    config = _posted_config(queue, request.POST.get("score_config", ""))
    if item is None:
        raise Http404(_("No such item in this queue."))
    if config is None:
        messages.error(request, _("No such score config in this queue."))
        return _calibration_page(request, queue)
    try:
        case, created = judge_miss_test_case(item=item, config=config, user=request.user)
    except ValidationError as problem:
        messages.error(request, " ".join(problem.messages))
    else:
        text = _("Test case %(name)s added.") if created else _("Test case %(name)s exists.")
        messages.success(request, text % {"name": case.name})
    return _calibration_page(request, queue)


@workspace_view()
@require_POST
def gold_evalset(request, queue_id):
    """The button: a config's gold items → the next version of the queue's gold set."""
    queue = _queue(request, queue_id)
    config = _posted_config(queue, request.POST.get("score_config", ""))
    if config is None:
        messages.error(request, _("No such score config in this queue."))
        return _calibration_page(request, queue)
    try:
        version, _created = gold_evalset_export(queue=queue, config=config, user=request.user)
    except ValidationError as problem:
        messages.error(request, " ".join(problem.messages))
        return _calibration_page(request, queue)
    messages.success(request, _("Gold items exported as version %(v)s.") % {"v": version.version})
    return redirect("evalsets:detail", ws=request.workspace.slug, id=version.evalset.public_id)


def _calibration_page(request, queue: AnnotationQueue):
    return redirect("annotation:calibration", ws=request.workspace.slug, queue_id=queue.public_id)


def _posted_config(queue: AnnotationQueue, raw: str):
    return next(
        (c for c in selectors.comparable_configs(queue=queue) if str(c.public_id) == raw), None
    )
