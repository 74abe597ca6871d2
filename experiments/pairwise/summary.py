"""A pairwise run's statistics, computed from its stored pairs by `experiments.stats.pairwise`
and stored on the run (like an experiment's Aggregate) when it finishes and whenever it
changes (a retry round finishing), so pages and the API read them without recomputing.

Per pair of experiments: B's win rate over A with ties split and with ties excluded (each with
its bootstrap interval, clustered by item when the judge saw items more than once, and the sign
test), and the judge's position bias on that pair; for the run: the judge's position bias over
every pair, and with three or more experiments a Bradley–Terry leaderboard (matches carry their
item, so the bootstrap resamples items with all their matches). Experiments are named by their
public id; the interval settings are the run's own.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from itertools import combinations

from django.utils import timezone

from ..models import PairwiseResult, PairwiseRun
from ..stats.interval_settings import interval_settings
from ..stats.pairwise import BT_RESAMPLES, TIES_MODES, bradley_terry, position_bias, win_rate

NO_INTERVAL = 2**62  # a min_sample no run reaches: interval method "none"


def pairwise_summary_refresh(*, run: PairwiseRun) -> dict:
    """Compute the run's statistics from its stored pairs and store them on the run."""
    run.summary = pairwise_summary_compute(run=run)
    run.summary_at = timezone.now()
    run.save(update_fields=["summary", "summary_at"])
    return run.summary


def pairwise_summary_compute(*, run: PairwiseRun) -> dict:
    """The statistics of the pairs stored now (see the module's docstring for the shape)."""
    settings = interval_settings(run.interval)
    entries = list(run.entries.select_related("experiment").order_by("position"))
    ids = {e.experiment_id: str(e.experiment.public_id) for e in entries}
    rows = _rows(run)
    by_pair = defaultdict(list)
    for row in rows:
        by_pair[(row["experiment_a"], row["experiment_b"])].append(row)
    pairs = [
        _pair(ids[a], ids[b], by_pair[(a, b)], settings)
        for a, b in combinations([e.experiment_id for e in entries], 2)
    ]
    return {
        "experiments": [ids[e.experiment_id] for e in entries],
        "pairs": pairs,
        "position_bias": _bias(rows, settings),
        "leaderboard": _leaderboard(rows, ids, settings) if len(entries) >= 3 else None,
        "statuses": dict(Counter(row["status"] for row in rows)),
        "interval": settings,
    }


def _rows(run: PairwiseRun) -> list[dict]:
    fields = "experiment_a experiment_b item_uid outcome answer_ab answer_ba status".split()
    rows = PairwiseResult.objects.filter(run=run).values(*fields)
    return [{**row, "item_uid": str(row["item_uid"])} for row in rows.iterator(5000)]


def _pair(a: str, b: str, rows: list[dict], settings: dict) -> dict:
    keyed = [(row["item_uid"], row["outcome"]) for row in rows]
    rates = {
        mode: win_rate(keyed, ties=mode, **_interval(settings)).to_dict() for mode in TIES_MODES
    }
    return {
        "a": a,
        "b": b,
        "pairs": len(rows),
        "win_rate": rates,
        "position_bias": _bias(rows, settings),
    }


def _interval(settings: dict) -> dict:
    """win_rate's interval options from a run's interval settings."""
    return {
        "confidence": settings["confidence"],
        "resamples": settings["iterations"],
        "min_sample": settings["min_sample"] if settings["method"] != "none" else NO_INTERVAL,
        "seed": settings["seed"],
    }


def _bias(rows: list[dict], settings: dict) -> dict:
    answers = [(row["answer_ab"] or None, row["answer_ba"] or None) for row in rows]
    return position_bias(answers, confidence=settings["confidence"]).to_dict()


def _leaderboard(rows: list[dict], ids: dict, settings: dict) -> dict:
    matches = [
        (ids[row["experiment_a"]], ids[row["experiment_b"]], row["outcome"], row["item_uid"])
        for row in rows
    ]
    fit = bradley_terry(
        matches,
        names=list(ids.values()),
        resamples=BT_RESAMPLES,
        confidence=settings["confidence"],
        seed=settings["seed"],
    )
    return fit.to_dict()
