"""Statistics of bindings scored per assistant turn: turns → one outcome per item, and the
turn-level numbers with intervals clustered by item.

The turns of one conversation share its user, its app and its history, so they are no more
independent than repetitions of a row: turn-level intervals resample items with all their
turns together (`experiments.stats.clustered`), never single turns. The item-level verdict
comes from the binding's aggregation:

- `all_pass` (the default): fail when any turn fails, pass when every turn passed, unknown
  otherwise (no fail, but a turn nobody could judge); the item's score is its turns' mean;
- `mean`: the mean of the turns' scores, judged by the binding's policy;
- `min`: the lowest turn score, judged by the binding's policy (for a risk score the lowest
  is the least risky turn, so `all_pass` is the one that says "no turn was harmful").

Turns without a score are left out of `mean` and `min`; an item without a scored turn is
unknown. Plain values in, plain values out (the caller passes the policy as `decide`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from .clustered import clustered_mean_ci, clustered_rate_ci, item_totals
from .columns import first_seen_index
from .summary import VERDICT_OF_CODE, verdict_codes

AGGREGATES = ("all_pass", "mean", "min")


@dataclass(frozen=True)
class ItemOutcome:
    """What an item's turns come to: its verdict, its score and how many turns it had."""

    verdict: str
    score: float | None
    turns: int


def item_outcomes(
    items: Sequence[Hashable],
    verdicts: Sequence[str],
    scores: Sequence[float | None],
    *,
    aggregate: str,
    decide: Callable[[float], str],
) -> dict[Hashable, ItemOutcome]:
    """Turn rows (item, verdict, score) → item: its outcome by `aggregate` (first-seen order).
    `decide` is the binding's verdict policy on a score."""
    index, keys = first_seen_index(items)
    codes, values, turns = unit_outcomes(
        index,
        len(keys),
        verdict_codes(verdicts),
        np.asarray(scores, dtype=float).reshape(-1),
        aggregate=aggregate,
        decide=decide,
    )
    return {
        key: ItemOutcome(VERDICT_OF_CODE[c], None if np.isnan(v) else float(v), int(t))
        for key, c, v, t in zip(keys, codes, values, turns, strict=True)
    }


def unit_outcomes(
    units: np.ndarray,
    count: int,
    codes: np.ndarray,
    scores: np.ndarray,
    *,
    aggregate: str,
    decide: Callable[[float], str],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`item_outcomes` as arrays: turns given as each one's unit index (`count` units, e.g.
    (item, repetition)), verdict code and score (NaN: none) → each unit's verdict code (int8),
    score (NaN: none) and number of turns."""
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate is one of {', '.join(AGGREGATES)}, not {aggregate!r}")
    totals = item_totals(units, count, codes, scores)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(totals.scored > 0, totals.sums / totals.scored, np.nan)
    if aggregate == "all_pass":
        return _all_pass(totals.rows, totals.passes, totals.fails), means, totals.rows
    values = means if aggregate == "mean" else _minima(units, totals.scored > 0, scores)
    return _decided(values, decide), values, totals.rows


def _all_pass(turns: np.ndarray, passes: np.ndarray, fails: np.ndarray) -> np.ndarray:
    """Fail when any turn fails, pass when every turn passed, unknown otherwise."""
    return np.where(fails > 0, 1, np.where(passes == turns, 0, 2)).astype(np.int8)


def _minima(units: np.ndarray, has_score: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Each unit's lowest score (NaN: no scored turn)."""
    scored = ~np.isnan(scores)
    lowest = np.full(has_score.size, np.inf)
    np.minimum.at(lowest, units[scored], scores[scored])
    return np.where(has_score, lowest, np.nan)


def _decided(values: np.ndarray, decide: Callable[[float], str]) -> np.ndarray:
    """The policy's verdict code of each unit's score; unknown without a score."""
    codes = np.full(values.size, 2, dtype=np.int8)
    scored = np.flatnonzero(~np.isnan(values))
    if scored.size:
        codes[scored] = verdict_codes([decide(float(values[i])) for i in scored])
    return codes


def turn_summary(
    items: Sequence[Hashable],
    turns: Sequence[int],
    verdicts: Sequence[str],
    scores: Sequence[float | None],
    *,
    resampling: dict | None,
    units: Sequence[Hashable] | None = None,
) -> dict:
    """Turn-level numbers of turn rows (item, turn index from 0, verdict, score): counts, the
    pass rate over decided turns and the mean score with intervals clustered by item
    (`resampling`: iterations, confidence, min_sample, seed; None: no intervals), turns per
    conversation (`units`, e.g. (item, repetition); default the items), and the counts at each
    turn index. Verdicts may be given as codes (`verdict_codes`), items and units as arrays."""
    codes = verdict_codes(verdicts)
    values = np.asarray(scores, dtype=float).reshape(-1)
    item_index, distinct = first_seen_index(items)
    per_item = item_totals(item_index, len(distinct), codes, values)
    conversations = _conversation_lengths(units if units is not None else items)
    passed, fails = int((codes == 0).sum()), int((codes == 1).sum())
    scored = values[~np.isnan(values)]
    return {
        "turns": int(codes.size),
        "passed": passed,
        "fails": fails,
        "nones": int(codes.size) - passed - fails,
        "pass_rate": passed / (passed + fails) if passed + fails else None,
        "mean": float(np.mean(scored)) if scored.size else None,
        **_intervals(per_item, resampling),
        "items": len(distinct),
        "conversations": int(conversations.size),
        "turns_per_conversation": float(np.mean(conversations)) if conversations.size else None,
        "max_turns": int(conversations.max()) if conversations.size else 0,
        "by_turn": by_turn(turns, codes),
    }


def _conversation_lengths(units) -> np.ndarray:
    index, distinct = first_seen_index(units)
    return np.bincount(index, minlength=len(distinct))


def _intervals(per_item, resampling: dict | None) -> dict:
    """The pass-rate interval (mirrored from the fail rate's) and the mean's, by item."""
    if resampling is None:
        return {"pass_rate_ci": None, "mean_ci": None}
    fail_ci = clustered_rate_ci(per_item.fails, per_item.decided, **resampling)
    return {
        "pass_rate_ci": None if fail_ci is None else (1 - fail_ci[1], 1 - fail_ci[0]),
        "mean_ci": clustered_mean_ci(per_item.sums, per_item.scored, **resampling),
    }


def by_turn(turns: Sequence[int], verdicts: Sequence[str] | np.ndarray) -> list[dict]:
    """Pass / fail / unknown counts at each turn index (every conversation's first turn, its
    second…; `turn` counts from 1), so a page can show whether later turns fare worse."""
    index = np.asarray(turns, dtype=np.intp).reshape(-1)
    codes = verdict_codes(verdicts)
    size = int(index.max()) + 1 if index.size else 0
    table = np.bincount(index * 3 + codes, minlength=3 * size).reshape(size, 3)
    return [
        {"turn": n + 1, "passed": int(p), "fails": int(f), "nones": int(u)}
        for n, (p, f, u) in enumerate(table)
    ]
