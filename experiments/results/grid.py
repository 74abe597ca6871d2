"""The results grid: one row per evalset item, one column per evaluator (as Coze Loop and
LangSmith lay results out), and the row drawer that shows every evaluator of one item.

Rows are the pinned version's items, so a row exists before any evaluator has scored it and
its number (position + 1) is the same as on the evalset page. Filters select the items that
have a matching result; sorting by an evaluator walks that evaluator's results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db.models import (
    Avg,
    Case,
    Exists,
    F,
    IntegerField,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Coalesce, NullIf, Substr
from django.http import Http404
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from assay.selectors import as_uuid
from assay.vocabulary import Verdict
from evalsets.models import EvalSetItem

from ..models import EvaluatorBinding, Experiment, Result, TargetResult

GRID_COLUMNS = 4  # dataset columns in the grid; the drawer shows every column
CELL_HEAD = 160  # characters a collapsed cell shows
CELL_FULL = 2000  # characters an expanded grid cell shows; the drawer shows the rest
DRAWER_HEAD = 600  # longer drawer texts start collapsed
REASON_HEAD = 140
HEAVY = ("input", "rendered_request", "raw_answer", "stdout", "reason")


# ----------------------------------------------------------------------------- which rows


def grid_item_ids(
    *, experiment: Experiment, sort: str = "", item: str = "", q: str = "", **filters
) -> QuerySet:
    """Item pks of the grid's rows in display order, after the results table's filters.

    `filters` are `results_list`'s (evaluator, verdict, status, tag, score_min, score_max):
    a row is shown when one of its results matches them all. `q` searches the row's cells and
    its results' reasons and errors. `sort` is "", "score:<binding>", "-score:<binding>" or
    "verdict:<binding>" (fails first). Bad values are a ValidationError naming the filter.
    """
    from ..selectors import results_list

    items = EvalSetItem.objects.filter(version_id=experiment.evalset_version_id)
    if item:
        items = items.filter(item_id=_item_uuid(item))
    if any(filters.values()):
        matched = results_list(experiment=experiment, **filters)
        items = items.filter(Exists(matched.filter(item_id=OuterRef("pk"))))
    if q:
        items = items.filter(Q(search_text__icontains=q) | Exists(_text_hits(experiment, q)))
    return _sorted(experiment, items, sort)


def _item_uuid(value: str):
    uid = as_uuid(value)
    if uid is None:
        raise ValidationError({"item": _("Give an item id (a UUID).")})
    return uid


def _text_hits(experiment: Experiment, q: str) -> QuerySet:
    text = Q(reason__icontains=q) | Q(error__icontains=q)
    return Result.objects.filter(experiment=experiment, item_id=OuterRef("pk")).filter(text)


def _verdict_rank() -> Case:
    """Over results annotated with `final`: fails first, then unknowns, then passes."""
    return Case(
        When(final=Verdict.FAIL, then=0),
        When(final=Verdict.UNKNOWN, then=1),
        default=2,
        output_field=IntegerField(),
    )


# a human correction wins over the evaluator's verdict
FINAL_VERDICT = Coalesce(NullIf("human_verdict", Value("")), "verdict")


def _sorted(experiment: Experiment, items: QuerySet, sort: str) -> QuerySet:
    if not sort:
        return items.order_by("position", "pk").values_list("pk", flat=True)
    key, binding = _sort_parts(experiment, sort)
    results = Result.objects.filter(experiment=experiment, binding_id=binding, item__in=items)
    if key == "verdict":
        ranked = results.annotate(final=FINAL_VERDICT)
        grouped = ranked.values("item_id").annotate(k=Min(_verdict_rank()))
        order = F("k").asc()
    else:
        grouped = results.values("item_id").annotate(k=Avg("score"))
        order = F("k").desc(nulls_last=True) if key == "-score" else F("k").asc(nulls_last=True)
    grouped = grouped.annotate(p=Min("position")).order_by(order, "p")
    return grouped.values_list("item_id", flat=True)


def _sort_parts(experiment: Experiment, sort: str) -> tuple[str, int]:
    key, _sep, binding = sort.partition(":")
    known = set(experiment.bindings.values_list("pk", flat=True))
    if key not in ("score", "-score", "verdict") or not binding.isdigit():
        raise ValidationError({"sort": _("Sort by score:<evaluator>, -score:… or verdict:….")})
    if int(binding) not in known:
        raise ValidationError({"sort": _("This experiment has no evaluator %s.") % binding})
    return key, int(binding)


def sort_choices(bindings) -> list[tuple[str, str]]:
    """The sort select's options: row order, then per evaluator score up, down and fails."""
    choices = [("", _("Row order"))]
    for b in bindings:
        name = b.evaluator_version.evaluator.name
        choices += [
            (f"verdict:{b.pk}", _("%(name)s: fails first") % {"name": name}),
            (f"score:{b.pk}", _("%(name)s: score ↑") % {"name": name}),
            (f"-score:{b.pk}", _("%(name)s: score ↓") % {"name": name}),
        ]
    return choices


# ----------------------------------------------------------------------------- what rows show


@dataclass
class Cell:
    """A dataset or output value as the grid shows it: a head, and the rest on demand."""

    content: dict | None
    text: str | None = None
    head: str = ""
    full: str = ""
    more: bool = False
    clipped: bool = False


def text_cell(content: dict | None, *, head: int = CELL_HEAD, full: int = CELL_FULL) -> Cell:
    """Text is cut to `head` characters (expandable to `full`); other types render as is."""
    if not content or content.get("content_type") != "Text":
        return Cell(content=content)
    text = content.get("text") or ""
    return Cell(
        content=content,
        text=text,
        head=text[:head],
        full=text[:full],
        more=len(text) > head,
        clipped=len(text) > full,
    )


@dataclass
class EvaluatorCell:
    """One evaluator's results (one per repetition) on one row."""

    binding: EvaluatorBinding
    results: list[Result] = field(default_factory=list)

    @property
    def score(self) -> float | None:
        scores = [_final_score(r) for r in self.results if _final_score(r) is not None]
        return sum(scores) / len(scores) if scores else None

    @property
    def single(self) -> Result | None:
        return self.results[0] if len(self.results) == 1 else None


def _final_score(result: Result) -> float | None:
    if result.human_verdict and result.human_score is not None:
        return result.human_score
    return result.score


def grid_rows(
    *,
    experiment: Experiment,
    bindings: list[EvaluatorBinding],
    item_pks: list[int],
    heavy: tuple[str, ...] = HEAVY,
) -> list[dict]:
    """The grid rows of these items, in the given order: cells, output and evaluator cells.

    `heavy` result fields are not loaded (the page shows a reason's head; the API the whole)."""
    items = EvalSetItem.objects.filter(pk__in=item_pks).only(
        "id", "item_id", "position", "data", "tags"
    )
    by_pk = {item.pk: item for item in items}
    results = _page_results(experiment, item_pks, heavy)
    outputs = _page_outputs(experiment, item_pks)
    columns = [c["name"] for c in experiment.evalset_version.columns][:GRID_COLUMNS]
    return [
        _row(by_pk[pk], columns, bindings, results.get(pk, {}), outputs.get(pk))
        for pk in item_pks
        if pk in by_pk
    ]


def _page_results(experiment: Experiment, item_pks: list[int], heavy) -> dict[int, dict]:
    rows = (
        Result.objects.filter(experiment=experiment, item_id__in=item_pks)
        .defer(*heavy)
        .select_related("binding__evaluator_version__evaluator")
        .annotate(reason_head=Substr("reason", 1, REASON_HEAD + 1))
        .order_by("repeat")
    )
    found: dict[int, dict] = {}
    for r in rows:
        found.setdefault(r.item_id, {}).setdefault(r.binding_id, []).append(r)
    return found


def _page_outputs(experiment: Experiment, item_pks: list[int]) -> dict[int, dict]:
    """The first repetition's target output per item (head only; the drawer has the rest)."""
    rows = (
        TargetResult.objects.filter(experiment=experiment, item_id__in=item_pks, repeat=0)
        .annotate(head=Substr("output", 1, CELL_FULL + 1))
        .values("item_id", "status", "head", "error")
    )
    return {row["item_id"]: row for row in rows}


def _row(item, columns, bindings, results: dict, output: dict | None) -> dict:
    return {
        "item": item,
        "uid": item.item_id,
        "number": item.position + 1,
        "cells": [text_cell((item.data or {}).get(name)) for name in columns],
        "output": _output_cell(output),
        "evaluators": [EvaluatorCell(b, results.get(b.pk, [])) for b in bindings],
    }


def _output_cell(output: dict | None) -> dict | None:
    if output is None:
        return None
    text = {"content_type": "Text", "text": output["head"] or ""}
    return {"status": output["status"], "error": output["error"], "cell": text_cell(text)}


# ----------------------------------------------------------------------------- the drawer


def item_in_experiment(*, experiment: Experiment, item_id) -> EvalSetItem:
    """The pinned version's item by its item id (a UUID), or 404."""
    uid = as_uuid(item_id)
    found = (
        EvalSetItem.objects.filter(version_id=experiment.evalset_version_id, item_id=uid).first()
        if uid
        else None
    )
    if found is None:
        raise Http404(gettext("No such row in this experiment"))
    return found


def drawer_results(*, experiment: Experiment, item: EvalSetItem, repeat: int) -> list[dict]:
    """Every evaluator of the experiment on one item and repetition, in binding order, with
    its whole result (or None when it has not scored the row)."""
    results = Result.objects.filter(experiment=experiment, item=item, repeat=repeat)
    by_binding = {r.binding_id: r for r in results.select_related("corrected_by")}
    bindings = experiment.bindings.select_related("evaluator_version__evaluator")
    return [{"binding": b, "result": by_binding.get(b.pk)} for b in bindings.order_by("position")]


def drawer_output(*, experiment: Experiment, item: EvalSetItem, repeat: int):
    """The target's result for the item and repetition, or None."""
    return TargetResult.objects.filter(experiment=experiment, item=item, repeat=repeat).first()
