"""Bindings scored per assistant turn, as the aggregates, compare and the gate read them: their
results are turns, and a row's outcome is its turns aggregated by the binding's rule
(`experiments.stats.per_turn`), one per (item, repetition). Human corrections of single turns
count in that outcome."""

from __future__ import annotations

from django.db.models import QuerySet

from assay.vocabulary import CONTENT_FIELD, ContentType, ResultStatus, Verdict
from evaluators.policies import Policy, verdict

from ..stats.clustered import item_groups
from ..stats.per_turn import item_outcomes, turn_summary

TURN_FIELDS = (
    "score human_score verdict human_verdict tags status item_id item_uid repeat turn "
    "latency_ms tokens_in tokens_out cost"
).split()
RESAMPLING = ("iterations", "confidence", "min_sample", "seed")
MESSAGES = CONTENT_FIELD[ContentType.CONVERSATION]


def per_turn_rows(results: QuerySet, *, binding, settings: dict) -> tuple[list[dict], dict]:
    """One row per (item, repetition) in the aggregates' row shape (its outcome by the
    binding's aggregation, usage summed over its turns), and the turn-level summary."""
    turns = _turns(results)
    units = [(r["item_id"], r["repeat"]) for r in turns]
    verdicts, scores = [r["verdict"] for r in turns], [r["score"] for r in turns]
    outcomes = item_outcomes(
        units, verdicts, scores, aggregate=binding.turn_aggregate, decide=_decider(binding)
    )
    grouped = item_groups(units, turns)
    rows = [_unit_row(grouped[unit], outcome) for unit, outcome in outcomes.items()]
    resampling = None if settings["method"] == "none" else {k: settings[k] for k in RESAMPLING}
    summary = turn_summary(
        [r["item_id"] for r in turns],
        [r["turn"] for r in turns],
        verdicts,
        scores,
        resampling=resampling,
        units=units,
    )
    return rows, {**summary, "aggregate": binding.turn_aggregate}


def per_turn_outcomes(*, experiment, binding) -> list[tuple[str, str, float | None]]:
    """(item id, verdict, score) per (item, repetition) of a per-turn binding, for compare and
    the gate (which then collapse repetitions as for any binding)."""
    results = experiment.results.filter(binding=binding)
    rows, _summary = per_turn_rows(results, binding=binding, settings={"method": "none"})
    return [(str(row["item_uid"]), row["verdict"], row["score"]) for row in rows]


def _turns(results: QuerySet) -> list[dict]:
    """The turn rows in (item, repetition, turn) order, each with its human correction."""
    ordered = results.order_by("item_id", "repeat", "turn").values(*TURN_FIELDS)
    return [_corrected(row) for row in ordered.iterator(10000)]


def _corrected(row: dict) -> dict:
    corrected = row["human_verdict"] and row["human_score"] is not None
    score = row["human_score"] if corrected else row["score"]
    return {**row, "verdict": row["human_verdict"] or row["verdict"], "score": score}


def _decider(binding):
    """The binding's verdict policy on one score (for mean and min)."""
    policy = Policy.from_dict(binding.policy)
    meaning = binding.evaluator_version.score_meaning
    return lambda score: verdict(score, policy, meaning)


def _unit_row(turns: list[dict], outcome) -> dict:
    """An (item, repetition) as one row: decided rows count as a success, the others keep the
    status of their first turn that did not succeed."""
    first = turns[0]
    failed = [r["status"] for r in turns if r["status"] != ResultStatus.SUCCESS]
    decided = outcome.verdict != Verdict.UNKNOWN
    costs = [r["cost"] for r in turns if r["cost"] is not None]
    return {
        "item_id": first["item_id"],
        "item_uid": first["item_uid"],
        "tags": first["tags"],
        "verdict": outcome.verdict,
        "human_verdict": "",
        "score": outcome.score,
        "human_score": None,
        "status": ResultStatus.SUCCESS if decided or not failed else failed[0],
        "latency_ms": sum(r["latency_ms"] for r in turns),
        "tokens_in": sum(r["tokens_in"] for r in turns),
        "tokens_out": sum(r["tokens_out"] for r in turns),
        "cost": sum(costs) if costs else None,
    }


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
