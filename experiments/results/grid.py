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
from ..scoring.turns import result_turns
from ..stats import COUNT_KEYS
from .grid_pages import GridPage, Order, page_of
from .per_turn import row_outcomes, scored_reply

GRID_COLUMNS = 4  # dataset columns in the grid; the drawer shows every column
CELL_HEAD = 160  # characters a collapsed cell shows
CELL_FULL = 2000  # characters an expanded grid cell shows; the drawer shows the rest
DRAWER_HEAD = 600  # longer drawer texts start collapsed
REASON_HEAD = 140
HEAVY = ("rendered_request", "raw_answer", "stdout", "reason")


# ----------------------------------------------------------------------------- which rows


def grid_item_ids(**query) -> QuerySet:
    """Item pks of the grid's rows in display order (`grid_query`'s arguments)."""
    rows, _order = grid_query(**query)
    return rows.values_list("grid_item", flat=True)


def grid_query(
    *, experiment: Experiment, sort: str = "", item: str = "", q: str = "", **filters
) -> tuple[QuerySet, Order]:
    """The grid's rows in display order, as values: `grid_item` (the item's pk), `grid_pos`
    (its position) and, when sorted, `grid_key`, ordered as the returned `Order` says (so a
    page can start after a row's place instead of at an offset).

    `filters` are `results_list`'s (evaluator, verdict, status, tag, score_min, score_max):
    a row is shown when one of its results matches them all. `q` searches the row's cells and
    its results' reasons and errors. `sort` is "", "score:<binding>", "-score:<binding>" or
    "verdict:<binding>" (fails first). Bad values are a ValidationError naming the filter.
    """
    from ..selectors import results_list

    hits = text_hits(experiment=experiment, q=q) if q else None
    if _one_binding(experiment, filters) and not (sort or item):
        # one evaluator's rows, one result each: walk the unique key in row order (the
        # experiment leads, the binding is filtered in the index; k bindings: k entries a row)
        results = results_list(experiment=experiment, **filters)
        if q:
            results = results.filter(_text_on_result(experiment, q, hits))
        return _walk(results, "item_id"), Order()
    items = _version_items(experiment)
    filtered = bool(item or q or any(filters.values()))
    if item:
        items = items.filter(item_id=_item_uuid(item))
    if any(filters.values()):
        # a semi-join: the planner walks the rows in order and probes, or hashes the matches
        matched = results_list(experiment=experiment, **filters).order_by()
        items = items.filter(position__in=matched.values("position"))
    if q:
        items = items.filter(_text_on_item(experiment, q, hits))
    return _sorted(experiment, items if filtered else None, sort)


def _walk(rows: QuerySet, item: str) -> QuerySet:
    """Rows in row order as the grid's values: by position alone, the order of the indexes
    the walk reads (a version's positions are distinct; one row's turns share one)."""
    named = rows.annotate(grid_item=F(item), grid_pos=F("position"))
    return named.order_by("grid_pos").values("grid_item", "grid_pos")


def _one_binding(experiment: Experiment, filters: dict) -> bool:
    """The filters name one binding by id (or the run has only one), and the run has one
    result per row for it."""
    if experiment.repetitions != 1 or not any(filters.values()):
        return False
    evaluator = str(filters.get("evaluator") or "")
    return evaluator.isdigit() or experiment.bindings.count() == 1


def _text_on_result(experiment: Experiment, q: str, hits: list[int] | None) -> Q:
    """On a result: its row is one of the text's few `hits`; else (common text) its own
    reason or error, its row's cells, or another result of its row (asked only when the run
    has other evaluators), tested row by row as the walk goes."""
    if hits is not None:
        return Q(position__in=hits)
    # EXISTS rather than a join: asked only of a result whose own texts do not hold `q`
    cells = EvalSetItem.objects.filter(pk=OuterRef("item_id"), search_text__icontains=q)
    found = _text(q) | Q(Exists(cells.order_by()))
    if experiment.bindings.count() > 1:
        found |= Exists(_results_with(experiment, q).filter(position=OuterRef("position")))
    return found


def _text_on_item(experiment: Experiment, q: str, hits: list[int] | None) -> Q:
    """On an item: one of the few `hits`, else its cells or one of its results' texts."""
    if hits is not None:
        return Q(position__in=hits)
    others = _results_with(experiment, q).filter(position=OuterRef("position"))
    return Q(search_text__icontains=q) | Exists(others)


def _text(q: str) -> Q:
    from ..selectors import result_text

    return result_text(q)


def _results_with(experiment: Experiment, q: str) -> QuerySet:
    return Result.objects.filter(experiment=experiment).filter(_text(q)).order_by()


TEXT_HITS_CAP = 5000  # rows the text may be on and still be looked up through its indexes


def text_hits(*, experiment: Experiment, q: str) -> list[int] | None:
    """Positions of the rows whose cells or results hold `q`, when each side holds it at most
    TEXT_HITS_CAP times (found through the trigram indexes on PostgreSQL: a rare text costs
    its matches, not a scan); None for common text, which a walk in row order meets at once."""
    # in row order: the planner walks the rows' index for common text (stopping at the cap)
    # and reads the trigram index then sorts the few for rare text; unordered, it may scan
    # the table from its start, past every other experiment's rows
    cells = _version_items(experiment).filter(search_text__icontains=q).order_by("position")
    found = list(cells.values_list("position", flat=True)[: TEXT_HITS_CAP + 1])
    if len(found) > TEXT_HITS_CAP:
        return None
    texts = _results_with(experiment, q).order_by("position").values_list("position", flat=True)
    more = list(texts[: TEXT_HITS_CAP + 1])
    if len(more) > TEXT_HITS_CAP:
        return None
    return sorted(set(found) | set(more))


def _version_items(experiment: Experiment) -> QuerySet:
    return EvalSetItem.objects.of_version(experiment.evalset_version)


def _item_uuid(value: str):
    uid = as_uuid(value)
    if uid is None:
        raise ValidationError({"item": _("Give an item id (a UUID).")})
    return uid


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
RANKS = {Verdict.FAIL: 0, Verdict.UNKNOWN: 1, Verdict.PASS: 2}


def _sorted(experiment: Experiment, items: QuerySet | None, sort: str) -> tuple[QuerySet, Order]:
    """The rows in display order; `items` None means every row of the version."""
    if not sort:
        return _walk(items if items is not None else _version_items(experiment), "pk"), Order()
    key, binding = _sort_parts(experiment, sort)
    results = Result.objects.filter(experiment=experiment, binding_id=binding)
    if items is not None:
        results = results.filter(position__in=items.values("position"))
    order = Order(sorted=True, descending=key == "-score")
    if experiment.repetitions == 1:  # one result per row: order the results themselves
        if key == "verdict":
            order = Order(sorted=True, ranks=_ranks(binding))
        return _keyed(results, key, order), order
    return _grouped(results, key, order), order


def _ranks(binding: int) -> tuple[int, ...]:
    """The verdict ranks this binding has rows of (its stored counts; every rank without)."""
    from ..models import Aggregate

    summary = Aggregate.objects.filter(binding_id=binding).values_list("summary", flat=True)
    found = summary.first()
    if not found:
        return tuple(sorted(RANKS.values()))
    return tuple(sorted(RANKS[v] for v, k in COUNT_KEYS.items() if found.get(k, 1)))


def _keyed(results: QuerySet, key: str, order: Order) -> QuerySet:
    """One result per row, with its sort key: verdict rank (fails first) or score."""
    if key == "verdict":
        results = results.annotate(final=FINAL_VERDICT, grid_key=_verdict_rank())
    else:
        results = results.annotate(grid_key=F("score"))
    named = results.annotate(grid_item=F("item_id"), grid_pos=F("position"))
    return named.order_by(*_key_order(order)).values("grid_item", "grid_pos", "grid_key")


def _grouped(results: QuerySet, key: str, order: Order) -> QuerySet:
    """Several repetitions per row: the worst verdict rank or the mean score per row."""
    per_row = results.annotate(final=FINAL_VERDICT).values(grid_item=F("item_id"))
    k = Min(_verdict_rank()) if key == "verdict" else Avg("score")
    grouped = per_row.annotate(grid_pos=Min("position"), grid_key=k)
    return grouped.order_by(*_key_order(order))


def _key_order(order: Order) -> list:
    key = F("grid_key")
    return [key.desc(nulls_last=True) if order.descending else key.asc(nulls_last=True), "grid_pos"]


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


def grid_page(*, experiment: Experiment, filters: dict, size: int, **at) -> GridPage:
    """One page of the grid for the results table's `filters` (and sort), at `at`: after or
    before a cursor, or a page number."""
    rows, order = grid_query(experiment=experiment, **filters)
    unfiltered = grid_unfiltered(filters)
    return page_of(
        experiment=experiment, rows=rows, order=order, size=size, unfiltered=unfiltered, **at
    )


def grid_unfiltered(filters: dict) -> bool:
    """No filter and row order: every row of the version, whose count is stored."""
    return not any(filters.values())


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
    usage: bool = False,
) -> list[dict]:
    """The grid rows of these items, in the given order: cells, output and evaluator cells,
    and with `usage` each repetition's target latency, tokens and cost (the API's).

    `heavy` result fields are not loaded (the page shows a reason's head; the API the whole)."""
    items = EvalSetItem.objects.filter(pk__in=item_pks).only(
        "id", "item_id", "position", "data", "tags"
    )
    by_pk = {item.pk: item for item in items}
    results = _page_results(experiment, [item.position for item in by_pk.values()], heavy)
    outputs = _page_outputs(experiment, item_pks)
    columns = [c["name"] for c in experiment.evalset_version.columns][:GRID_COLUMNS]
    rows = [
        _row(by_pk[pk], columns, bindings, results.get(pk, {}), outputs.get(pk))
        for pk in item_pks
        if pk in by_pk
    ]
    if usage:
        found = target_usage(experiment=experiment, item_pks=item_pks)
        for row in rows:
            row["target"] = found.get(row["item"].pk, []) if found is not None else None
    return rows


def target_usage(*, experiment: Experiment, item_pks: list[int]) -> dict[int, list] | None:
    """Each item's target rows, one per repetition: status, latency, tokens and cost (None for
    a run without a target)."""
    if not experiment.target_spec.produces_output:
        return None
    rows = (
        TargetResult.objects.filter(experiment=experiment, item_id__in=item_pks)
        .order_by("repeat")
        .values("item_id", *TARGET_USAGE)
    )
    found: dict[int, list] = {}
    for row in rows:
        found.setdefault(row.pop("item_id"), []).append(row)
    return found


TARGET_USAGE = ("repeat", "status", "latency_ms", "tokens_in", "tokens_out", "cost")


def _page_results(experiment: Experiment, positions: list[int], heavy) -> dict[int, dict]:
    """The page's results by item and binding, read by position: the experiment's rows
    in order are its unique index."""
    rows = (
        Result.objects.filter(experiment=experiment, position__in=positions)
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
    # by position, which names the item in the experiment's unique index
    results = Result.objects.filter(experiment=experiment, position=item.position, repeat=repeat)
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
