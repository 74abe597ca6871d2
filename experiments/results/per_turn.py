"""Bindings scored per assistant turn, as the aggregates, compare and the gate read them: their
results are turns, and a row's outcome is its turns aggregated by the binding's rule
(`experiments.stats.per_turn`), one per (item, repetition). Human corrections of single turns
count in that outcome."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
from django.db.models import QuerySet

from assay.vocabulary import CONTENT_FIELD, ContentType, ResultStatus, Verdict
from evaluators.policies import Policy, verdict

from ..stats.columns import KeyCodes, RowColumns, columns_of, first_seen_index
from ..stats.per_turn import item_outcomes, turn_summary, unit_outcomes
from ..stats.summary import VERDICT_OF_CODE
from ..stats.tags import tag_breakdown, tag_item_cells, tag_set
from .aggregates.reads import corrected_q, final_code, final_score, row_chunks, tags_text

RESAMPLING = ("iterations", "confidence", "min_sample", "seed")
MESSAGES = CONTENT_FIELD[ContentType.CONVERSATION]


@dataclass
class Turns:
    """A per-turn binding's turn results as columns in (item, repetition, turn) order, human
    corrections applied; `units` numbers the (item, repetition) pairs and `starts` is each
    one's first turn."""

    items: np.ndarray
    units: np.ndarray
    starts: np.ndarray
    turn: np.ndarray
    codes: np.ndarray
    scores: np.ndarray
    statuses: np.ndarray  # codes of `status_names`
    status_names: list[str]
    tags: np.ndarray  # codes of `tag_sets`
    tag_sets: list[tuple[str, ...]]
    latencies: np.ndarray
    tokens_in: np.ndarray
    tokens_out: np.ndarray
    costs: np.ndarray


@dataclass
class Units:
    """One row per (item, repetition): its outcome by the binding's rule, its first turn's tags
    and the status it counts under."""

    codes: np.ndarray
    scores: np.ndarray
    statuses: np.ndarray  # codes of `Turns.status_names`, SUCCESS appended if missing
    status_names: list[str]


def per_turn_columns(
    results: QuerySet, *, binding, settings: dict, clustered: bool
) -> tuple[RowColumns, dict]:
    """A per-turn binding's rows, one per (item, repetition) — its outcome by the binding's
    aggregation, usage summed over its turns — as the aggregates' `RowColumns` (`clustered`:
    with each row's item and the per-tag cells), and the turn-level summary."""
    turns = read_turns(results)
    units = turn_units(turns, binding)
    columns = _unit_columns(turns, units, corrected=results.filter(corrected_q()).count())
    if clustered:
        _add_items(columns, turns, units)
    resampling = None if settings["method"] == "none" else {k: settings[k] for k in RESAMPLING}
    summary = turn_summary(
        turns.items, turns.turn, turns.codes, turns.scores, resampling=resampling, units=turns.units
    )
    return columns, {**summary, "aggregate": binding.turn_aggregate}


def per_turn_outcomes(*, experiment, binding) -> list[tuple[str, str, float | None]]:
    """(item id, verdict, score) per (item, repetition) of a per-turn binding, for compare and
    the gate (which then collapse repetitions as for any binding)."""
    results = experiment.results.filter(binding=binding)
    turns = read_turns(results)
    units = turn_units(turns, binding)
    uids = dict(results.order_by().values_list("item_id", "item__item_id").distinct())
    rows = zip(turns.items[turns.starts], units.codes, units.scores, strict=True)
    return [(str(uids[i]), VERDICT_OF_CODE[c], _score(s)) for i, c, s in rows]


def _score(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def read_turns(results: QuerySet) -> Turns:
    """The turn results as `Turns`: one query, read a chunk at a time into arrays."""
    statuses, tags = KeyCodes(), KeyCodes()
    columns = {
        "items": ("item_id", np.int64),
        "repeats": ("repeat", np.int64),
        "turn": ("turn", np.int32),
        "codes": (final_code(), np.int8),
        "scores": (final_score(), np.float64),
        "statuses": ("status", statuses),
        "tags": (tags_text(), tags),
        "latencies": ("latency_ms", np.float64),
        "tokens_in": ("tokens_in", np.int64),
        "tokens_out": ("tokens_out", np.int64),
        "costs": ("cost", np.float64),
    }
    rows = results.order_by("item_id", "repeat", "turn").values_list(
        *(field for field, _kind in columns.values())
    )
    arrays = columns_of(row_chunks(rows), [kind for _field, kind in columns.values()])
    read = dict(zip(columns, arrays, strict=True))
    items, repeats = read["items"], read.pop("repeats")
    new_unit = np.ones(items.size, dtype=bool)
    new_unit[1:] = (items[1:] != items[:-1]) | (repeats[1:] != repeats[:-1])
    return Turns(
        **read,
        units=np.cumsum(new_unit) - 1,
        starts=np.flatnonzero(new_unit),
        status_names=statuses.keys,
        tag_sets=[tag_set(json.loads(text)) for text in tags.keys],
    )


def turn_units(turns: Turns, binding) -> Units:
    """Each (item, repetition)'s outcome by the binding's rule, and its status: a decided row
    counts as a success, another keeps the status of its first turn that did not succeed."""
    codes, scores, _count = unit_outcomes(
        turns.units,
        turns.starts.size,
        turns.codes,
        turns.scores,
        aggregate=binding.turn_aggregate,
        decide=_decider(binding),
    )
    names = list(turns.status_names)
    if ResultStatus.SUCCESS not in names:
        names.append(ResultStatus.SUCCESS)
    success = names.index(ResultStatus.SUCCESS)
    first_failed = _first_failed(turns, success)
    statuses = np.where((codes != 2) | (first_failed < 0), success, first_failed)
    return Units(codes=codes, scores=scores, statuses=statuses, status_names=names)


def _first_failed(turns: Turns, success: int) -> np.ndarray:
    """Each unit's status code of its first turn that did not succeed, -1 if none."""
    failed = np.flatnonzero(turns.statuses != success)
    none = np.iinfo(np.int64).max
    first = np.full(turns.starts.size, none)
    np.minimum.at(first, turns.units[failed], failed)
    found = first != none
    return np.where(found, turns.statuses[np.where(found, first, 0)], -1)


def _unit_columns(turns: Turns, units: Units, *, corrected: int) -> RowColumns:
    """The units as `RowColumns`: usage summed over each one's turns (bincount adds in turn
    order, as a running sum would), a cost only where a turn had a price."""
    count = turns.starts.size
    priced = ~np.isnan(turns.costs)
    has_price = np.bincount(turns.units[priced], minlength=count) > 0
    costs = np.bincount(turns.units[priced], weights=turns.costs[priced], minlength=count)
    unit_tags = turns.tags[turns.starts]
    return RowColumns(
        counts=np.bincount(units.codes, minlength=3),
        statuses=_status_counts(units),
        tags=tag_breakdown(unit_tags, turns.tag_sets, units.codes, np.ones(count, np.int64)),
        tokens_in=int(turns.tokens_in.sum()),
        tokens_out=int(turns.tokens_out.sum()),
        corrected=corrected,
        scores=units.scores,
        latencies=np.bincount(turns.units, weights=turns.latencies, minlength=count),
        costs=np.where(has_price, costs, np.nan),
    )


def _status_counts(units: Units) -> dict[str, int]:
    index, codes = first_seen_index(units.statuses)
    counts = np.bincount(index, minlength=len(codes))
    return {units.status_names[c]: int(n) for c, n in zip(codes, counts, strict=True)}


def _add_items(columns: RowColumns, turns: Turns, units: Units) -> None:
    """With repetitions: each unit's item and verdict, and each tag's cells by item."""
    items, _distinct = first_seen_index(turns.items[turns.starts])
    columns.items, columns.codes = items.astype(np.int32), units.codes
    columns.tag_cells = tag_item_cells(
        items, turns.tags[turns.starts], turns.tag_sets, units.codes == 1, units.codes != 2
    )


def _corrected(row: dict) -> dict:
    corrected = row["human_verdict"] and row["human_score"] is not None
    score = row["human_score"] if corrected else row["score"]
    return {**row, "verdict": row["human_verdict"] or row["verdict"], "score": score}


def _decider(binding):
    """The binding's verdict policy on one score (for mean and min)."""
    policy = Policy.from_dict(binding.policy)
    meaning = binding.evaluator_version.score_meaning
    return lambda score: verdict(score, policy, meaning)


def row_outcomes(binding, results: list) -> list[dict]:
    """A per-turn binding's outcome on one row for each repetition, from its turn `Result`s
    (the grid's and the drawer's aggregate chip): repeat, verdict and its label, score, turns."""
    ordered = sorted(results, key=lambda r: (r.repeat, r.turn))
    final = [_corrected(_fields(r)) for r in ordered]
    outcomes = item_outcomes(
        [r.repeat for r in ordered],
        [r["verdict"] for r in final],
        [r["score"] for r in final],
        aggregate=binding.turn_aggregate,
        decide=_decider(binding),
    )
    return [
        {"repeat": repeat, "verdict": o.verdict, "label": Verdict(o.verdict).label, **_rest(o)}
        for repeat, o in outcomes.items()
    ]


def _fields(result) -> dict:
    keys = ("verdict", "human_verdict", "score", "human_score")
    return {key: getattr(result, key) for key in keys}


def _rest(outcome) -> dict:
    return {"score": outcome.score, "turns": outcome.turns}


def scored_reply(binding, turn: dict) -> str:
    """The assistant reply a turn result scored: the last message of the conversation its
    evaluator received (`turn`)."""
    for group in turn.values():
        if not isinstance(group, dict):
            continue
        for variable, source in binding.mapping.items():
            content = group.get(variable) if source == binding.turn_source else None
            messages = content.get(MESSAGES) if isinstance(content, dict) else None
            if messages:
                return str(messages[-1].get("content") or "")
    return ""
