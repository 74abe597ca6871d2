"""Reads of one run's results: the filtered list, one result, the run's tags."""

from __future__ import annotations

import json
import math

from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import F, Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext

from assay.selectors import as_uuid
from assay.vocabulary import ResultStatus, Verdict
from evalsets.models import EvalSetItem

from ..models import Experiment, Result
from .runs import _aggregated

TAG_SCAN = 5000


def results_list(
    *,
    experiment: Experiment,
    evaluator: str = "",
    verdict: str = "",
    status: str = "",
    tag: str = "",
    q: str = "",
    score_min: str | float | None = None,
    score_max: str | float | None = None,
    item: str = "",
) -> QuerySet[Result]:
    """Results of one experiment with the results table's filters.

    `evaluator` is a binding id, an evaluator or an evaluator version public id; `verdict` is
    the final verdict (the human correction when there is one); `item` is an item's id (all its
    evaluators and repetitions). Bad filters are a ValidationError naming the filter, so a typo
    never silently shows everything.
    """
    qs = Result.objects.filter(experiment=experiment)
    errors: dict[str, str] = {}
    if evaluator:
        qs = _by_evaluator(qs, evaluator, errors)
    if verdict:
        if verdict not in Verdict.values:
            errors["verdict"] = gettext(
                "Unknown verdict %(verdict)r; use pass, fail or unknown."
            ) % {"verdict": verdict}
        qs = qs.filter(Q(human_verdict=verdict) | Q(human_verdict="", verdict=verdict))
    if status:
        if status not in ResultStatus.values:
            errors["status"] = gettext("Unknown status %(status)r.") % {"status": status}
        qs = qs.filter(status=status)
    if tag:
        qs = qs.filter(_has_tag(tag))
    if q:
        qs = qs.filter(result_text(q))
    qs = _by_score(qs, score_min, "score_min", "gte", errors)
    qs = _by_score(qs, score_max, "score_max", "lte", errors)
    qs = _by_item(qs, experiment, item, errors)
    if errors:
        raise ValidationError(errors)
    # binding ids follow binding positions (created in order), so this ordering walks the
    # unique (experiment, position, binding, …) index instead of sorting every row
    # the heavy per-row fields stay behind (the drawer loads them), and the few bindings are
    # prefetched for the page instead of joined into every row before the sort
    return (
        qs.defer("rendered_request", "raw_answer", "stdout")
        .prefetch_related("binding__evaluator_version__evaluator")
        .order_by("position", "binding_id")
    )


# A result's item id, read through its item (results do not copy it): annotated where a
# result is shown with it (the API), not on the grid's walks, which would join every row.
ITEM_UID = F("item__item_id")


def result_text(q: str) -> Q:
    """Results whose reason or error holds `q` (on PostgreSQL through the trigram indexes on
    UPPER(reason) and UPPER(error), when the planner expects few)."""
    return Q(reason__icontains=q) | Q(error__icontains=q)


def _has_tag(tag: str) -> Q:
    """Results whose tags hold `tag`: JSON containment on PostgreSQL (the planner reads it as
    a cheap test and walks rows in order; the text of every row's tags costs 20× more), else
    the quoted tag as a substring of the list (SQLite has no JSON containment)."""
    if connection.vendor == "postgresql":
        return Q(tags__contains=[tag])
    return Q(tags__icontains=json.dumps(tag, ensure_ascii=False))


def _by_evaluator(qs, value: str, errors: dict) -> QuerySet:
    value = str(value).strip()
    if value.isdigit():
        return qs.filter(binding_id=int(value))
    ref = as_uuid(value)
    if ref is None:
        errors["evaluator"] = gettext(
            "Give a binding id, an evaluator id or an evaluator version id."
        )
        return qs
    return qs.filter(
        Q(binding__evaluator_version__evaluator__public_id=ref)
        | Q(binding__evaluator_version__public_id=ref)
    )


def _by_item(qs, experiment: Experiment, value: str, errors: dict) -> QuerySet:
    """The item's results, found by its row's position (the item id is not indexed among the
    results; the experiment's positions are)."""
    if not value:
        return qs
    uid = as_uuid(str(value).strip())
    if uid is None:
        errors["item"] = gettext("Give an item id (a UUID).")
        return qs
    rows = EvalSetItem.objects.of_version(experiment.evalset_version).filter(item_id=uid)
    return qs.filter(position__in=rows.values("position"))


def _by_score(qs, value, name: str, op: str, errors: dict) -> QuerySet:
    if value in (None, ""):
        return qs
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not math.isfinite(number):
        errors[name] = gettext("Give a number, e.g. 0.5.")
        return qs
    return qs.filter(**{f"score__{op}": number})


def result_get(*, experiment: Experiment, result_id) -> Result:
    """One result of the experiment by its integer id, or 404."""
    try:
        pk = int(result_id)
    except (TypeError, ValueError):
        raise Http404(gettext("No such result")) from None
    found = (
        Result.objects.filter(experiment=experiment, pk=pk)
        .annotate(item_uid=ITEM_UID)
        .select_related("binding__evaluator_version__evaluator")
        .first()
    )
    if found is None:
        raise Http404(gettext("No such result"))
    return found


def result_tags(*, experiment: Experiment) -> list[str]:
    """Tags of the pinned evalset version (scanning its first rows), for the filter select."""
    if not experiment.is_active and _aggregated(experiment):
        summaries = experiment.aggregates.values_list("summary", flat=True)
        return sorted({t for summary in summaries for t in (summary.get("tags") or {})})
    rows = EvalSetItem.objects.of_version(experiment.evalset_version).order_by()
    return sorted(
        {t for tags in rows.values_list("tags", flat=True)[:TAG_SCAN] for t in (tags or [])}
    )
