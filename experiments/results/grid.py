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
    Count,
    F,
    IntegerField,
    Min,
    Q,
    QuerySet,
    Value,
    When,
    Window,
)
from django.db.models.functions import Coalesce, NullIf, Substr
from django.http import Http404
from django.utils.translation import gettext
from django.utils.translation import gettext as _

from assay.selectors import as_uuid
from assay.vocabulary import Verdict
from evalsets.models import EvalSetItem

from ..engine.turns import result_turns
from ..models import EvaluatorBinding, Experiment, Result, TargetResult
from .per_turn import row_outcomes, scored_reply

GRID_COLUMNS = 4  # dataset columns in the grid; the drawer shows every column
CELL_HEAD = 160  # characters a collapsed cell shows
CELL_FULL = 2000  # characters an expanded grid cell shows; the drawer shows the rest
DRAWER_HEAD = 600  # longer drawer texts start collapsed
REASON_HEAD = 140
HEAVY = ("rendered_request", "raw_answer", "stdout", "reason")


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

    if _one_binding(experiment, filters) and not (sort or item):
        # one evaluator's rows, one result each: walk its (experiment, binding, position) index
        results = results_list(experiment=experiment, **filters)
        if q:
            results = results.filter(_text_on_row(experiment, q))
        return results.order_by("position", "pk").values_list("item_id", flat=True)
    items = _version_items(experiment)
    filtered = bool(item or q or any(filters.values()))
    if item:
        items = items.filter(item_id=_item_uuid(item))
    if any(filters.values()):
        # an uncorrelated IN: the planner hashes the matching results once (a semi-join)
        matched = results_list(experiment=experiment, **filters).order_by()
        items = items.filter(pk__in=matched.values("item_id"))
    if q:
        items = items.filter(Q(search_text__icontains=q) | Q(pk__in=_text_hits(experiment, q)))
    return _sorted(experiment, items if filtered else None, sort)


def _one_binding(experiment: Experiment, filters: dict) -> bool:
    """The filters name one binding by id (or the run has only one), and the run has one
    result per row for it."""
    if experiment.repetitions != 1 or not any(filters.values()):
        return False
    evaluator = str(filters.get("evaluator") or "")
    return evaluator.isdigit() or experiment.bindings.count() == 1


def _text_on_row(experiment: Experiment, q: str) -> Q:
    """On a result: its own reason or error, its row's cells, or another result of its row
    (only looked up when the run has other evaluators)."""
    found = Q(reason__icontains=q) | Q(error__icontains=q) | Q(item__search_text__icontains=q)
    if experiment.bindings.count() > 1:
        found |= Q(item_id__in=_text_hits(experiment, q))
    return found


def _version_items(experiment: Experiment) -> QuerySet:
    return EvalSetItem.objects.of_version(experiment.evalset_version)


def _item_uuid(value: str):
    uid = as_uuid(value)
    if uid is None:
        raise ValidationError({"item": _("Give an item id (a UUID).")})
    return uid


def _text_hits(experiment: Experiment, q: str) -> QuerySet:
    """Item pks of results whose reason or error holds `q` (one scan, hashed by the planner;
    a correlated EXISTS under the OR would be probed once per row)."""
    text = Q(reason__icontains=q) | Q(error__icontains=q)
    return Result.objects.filter(experiment=experiment).filter(text).values("item_id")


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


def _sorted(experiment: Experiment, items: QuerySet | None, sort: str) -> QuerySet:
    """Item pks in display order; `items` None means every row of the version."""
    if not sort:
        rows = items if items is not None else _version_items(experiment)
        return rows.order_by("position", "pk").values_list("pk", flat=True)
    key, binding = _sort_parts(experiment, sort)
    results = Result.objects.filter(experiment=experiment, binding_id=binding)
    if items is not None:
        results = results.filter(item_id__in=items.values("pk"))
    if experiment.repetitions == 1:  # one result per row: order the results themselves
        return _ordered(results, key, "position").values_list("item_id", flat=True)
    grouped = results.annotate(final=FINAL_VERDICT).values("item_id").annotate(p=Min("position"))
    return _ordered(grouped, key, "p", grouped=True).values_list("item_id", flat=True)


def _ordered(results: QuerySet, key: str, position: str, grouped: bool = False) -> QuerySet:
    """Fails first (worst repetition) or by (mean) score, ties in row order; grouped results
    come annotated with `final` before their GROUP BY."""
    if key == "verdict":
        if grouped:
            return results.annotate(k=Min(_verdict_rank())).order_by(F("k").asc(), position)
        ranked = results.annotate(final=FINAL_VERDICT, k=_verdict_rank())
        return ranked.order_by(F("k").asc(), position)
    k = Avg("score") if grouped else F("score")
    order = F("k").desc(nulls_last=True) if key == "-score" else F("k").asc(nulls_last=True)
    return results.annotate(k=k).order_by(order, position)


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


class CountedIds:
    """The grid's ids for a Paginator that asks for the count first: the requested page and
    the total come from one query (COUNT(*) OVER ()), not a count and then a slice."""

    def __init__(self, ids: QuerySet, *, start: int, size: int, total: int | None = None):
        self.ids, self.start, self.size, self.total = ids, start, size, total
        self.rows: list | None = None

    def count(self) -> int:
        if self.total is None:
            self._fetch()
        return self.total

    def _fetch(self) -> None:
        window = self.ids.annotate(total=Window(Count("*")))
        rows = list(
            window[self.start : self.start + self.size].values_list("total", *_pk(self.ids))
        )
        self.rows = [r[1] for r in rows]
        self.total = rows[0][0] if rows else self.ids.count()

    def __getitem__(self, part: slice) -> list:
        if self.rows is None or part.start != self.start:
            return list(self.ids[part])
        return self.rows[: part.stop - part.start]

    def __len__(self) -> int:
        return self.count()


def _pk(ids: QuerySet) -> tuple[str]:
    return (ids.query.values_select or ("pk",))[:1]


def grid_page(*, ids: QuerySet, number, per_page: int, total: int | None = None):
    """A Paginator page of item ids (`total` when it is known without counting)."""
    from django.core.paginator import Paginator

    page = _page_number(number)
    counted = CountedIds(ids, start=(page - 1) * per_page, size=per_page, total=total)
    return Paginator(counted, per_page).get_page(page)


def grid_unfiltered(filters: dict) -> bool:
    """No filter and row order: every row of the version, whose count is stored."""
    return not any(filters.values())


def _page_number(number) -> int:
    try:
        return max(1, int(number))
    except (TypeError, ValueError):
        return 1


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
    """One evaluator's results (one per repetition, and per assistant turn for a binding
    scored per turn) on one row."""

    binding: EvaluatorBinding
    results: list[Result] = field(default_factory=list)

    @property
    def turn_outcomes(self) -> list[dict]:
        """A per-turn binding's row outcome per repetition (its turns aggregated)."""
        return row_outcomes(self.binding, self.results) if self.binding.per_turn else []

    @property
    def score(self) -> float | None:
        scores = [r.final_score for r in self.results if r.final_score is not None]
        return sum(scores) / len(scores) if scores else None

    @property
    def single(self) -> Result | None:
        return self.results[0] if len(self.results) == 1 else None


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
        .order_by("repeat", "turn")
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
        "number": item.row_number,
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
    found = _version_items(experiment).filter(item_id=uid).first() if uid else None
    if found is None:
        raise Http404(gettext("No such row in this experiment"))
    return found


def drawer_results(*, experiment: Experiment, item: EvalSetItem, repeat: int) -> list[dict]:
    """Every evaluator of the experiment on one item and repetition, in binding order, with
    its whole result (or None when it has not scored the row); a binding scored per assistant
    turn has one entry per turn, the first carrying the row's aggregated outcome."""
    results = Result.objects.filter(experiment=experiment, item=item, repeat=repeat)
    by_binding: dict[int, list[Result]] = {}
    for r in results.select_related("corrected_by").order_by("turn"):
        by_binding.setdefault(r.binding_id, []).append(r)
    bindings = experiment.bindings.select_related("evaluator_version__evaluator")
    entries = []
    for b in bindings.order_by("position"):
        found = by_binding.get(b.pk, [])
        if b.per_turn and found:
            entries += _turn_entries(b, found)
        else:
            entries.append({"binding": b, "result": found[0] if found else None})
    return entries


def _turn_entries(binding: EvaluatorBinding, results: list[Result]) -> list[dict]:
    [outcome] = row_outcomes(binding, results)
    turns = result_turns(results=results)
    return [
        {
            "binding": binding,
            "result": r,
            "turn": r.turn + 1,
            "turns": len(results),
            "reply": scored_reply(binding, turns[r.pk]),
            "outcome": outcome if index == 0 else None,
        }
        for index, r in enumerate(results)
    ]


def drawer_output(*, experiment: Experiment, item: EvalSetItem, repeat: int):
    """The target's result for the item and repetition, or None."""
    return TargetResult.objects.filter(experiment=experiment, item=item, repeat=repeat).first()
