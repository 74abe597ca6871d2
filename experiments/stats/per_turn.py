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

Scores of unknown turns are left out of `mean` and `min`; an item without a scored turn is
unknown. Plain values in, plain values out (the caller passes the policy as `decide`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from assay.vocabulary import Verdict

from .clustered import clustered_mean_ci, clustered_rate_ci, item_groups

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
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate is one of {', '.join(AGGREGATES)}, not {aggregate!r}")
    groups = item_groups(items, list(zip(verdicts, scores, strict=True)))
    return {item: _outcome(turns, aggregate, decide) for item, turns in groups.items()}


def _outcome(turns: list[tuple[str, float | None]], aggregate: str, decide) -> ItemOutcome:
    verdicts = [v for v, _s in turns]
    scored = [s for _v, s in turns if s is not None]
    if aggregate == "all_pass":
        mean = sum(scored) / len(scored) if scored else None
        return ItemOutcome(_all_pass(verdicts), mean, len(turns))
    if not scored:
        return ItemOutcome(Verdict.UNKNOWN, None, len(turns))
    score = sum(scored) / len(scored) if aggregate == "mean" else min(scored)
    return ItemOutcome(decide(score), score, len(turns))


def _all_pass(verdicts: list[str]) -> str:
    if Verdict.FAIL in verdicts:
        return Verdict.FAIL
    if all(v == Verdict.PASS for v in verdicts):
        return Verdict.PASS
    return Verdict.UNKNOWN


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
    turn index."""
    passed = sum(v == Verdict.PASS for v in verdicts)
    fails = sum(v == Verdict.FAIL for v in verdicts)
    scored = [s for s in scores if s is not None]
    per_item = item_groups(items, list(zip(verdicts, scores, strict=True)))
    conversations = item_groups(units if units is not None else items, verdicts)
    counts = [len(rows) for rows in conversations.values()]
    return {
        "turns": len(verdicts),
        "passed": passed,
        "fails": fails,
        "nones": len(verdicts) - passed - fails,
        "pass_rate": passed / (passed + fails) if passed + fails else None,
        "mean": float(np.mean(scored)) if scored else None,
        **_intervals(per_item, resampling),
        "items": len(per_item),
        "conversations": len(conversations),
        "turns_per_conversation": float(np.mean(counts)) if counts else None,
        "max_turns": max(counts, default=0),
        "by_turn": by_turn(turns, verdicts),
    }


def _intervals(per_item: dict, resampling: dict | None) -> dict:
    """The pass-rate interval (mirrored from the fail rate's) and the mean's, by item."""
    if resampling is None:
        return {"pass_rate_ci": None, "mean_ci": None}
    fails = [sum(v == Verdict.FAIL for v, _s in t) for t in per_item.values()]
    decided = [sum(v != Verdict.UNKNOWN for v, _s in t) for t in per_item.values()]
    sums = [sum(s for _v, s in t if s is not None) for t in per_item.values()]
    scored = [sum(s is not None for _v, s in t) for t in per_item.values()]
    fail_ci = clustered_rate_ci(fails, decided, **resampling)
    return {
        "pass_rate_ci": None if fail_ci is None else (1 - fail_ci[1], 1 - fail_ci[0]),
        "mean_ci": clustered_mean_ci(sums, scored, **resampling),
    }


def by_turn(turns: Sequence[int], verdicts: Sequence[str]) -> list[dict]:
    """Pass / fail / unknown counts at each turn index (every conversation's first turn, its
    second…; `turn` counts from 1), so a page can show whether later turns fare worse."""
    rows = [
        {"turn": index + 1, "passed": 0, "fails": 0, "nones": 0}
        for index in range(max(turns, default=-1) + 1)
    ]
    for index, verdict in zip(turns, verdicts, strict=True):
        key = {Verdict.PASS: "passed", Verdict.FAIL: "fails"}.get(verdict, "nones")
        rows[index][key] += 1
    return rows
