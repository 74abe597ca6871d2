"""What the pairwise pages show, built from a run's stored statistics (or, while it runs, its
live counts): one card per pair of experiments and the leaderboard. Words are translated
here; numbers stay numbers for the templates' filters."""

from __future__ import annotations

from django.utils.translation import gettext as _

from ..models import PairwiseRun
from ..stats.pairwise import A_BETTER, B_BETTER, NO_DIFFERENCE, TIES_MODES
from .selectors import pairwise_live_counts, run_experiments

TIES_TEXT = {
    "split": lambda: _(
        "Ties split: a tie counts as half a win for each side, so every judged pair counts."
    ),
    "exclude": lambda: _(
        "Ties excluded: the rate is B's share of the pairs one side won; ties are left out."
    ),
}


def ties_mode(value: str | None) -> str:
    """The card's ties mode from the page's switch (split unless "exclude" is asked for)."""
    return value if value in TIES_MODES else "split"


def pair_cards(*, run: PairwiseRun, ties: str) -> list[dict]:
    """A card per pair of experiments: the stored statistics once the run has settled, the
    counts so far while it runs."""
    experiments = {str(e.public_id): e for e in run_experiments(run=run)}
    if not run.summary.get("pairs"):
        return _live_cards(run, list(experiments.values()))
    return [_card(pair, experiments, ties) for pair in run.summary["pairs"]]


def _card(pair: dict, experiments: dict, ties: str) -> dict:
    a, b = experiments[pair["a"]], experiments[pair["b"]]
    rate = pair["win_rate"][ties]
    counted_ties = rate["ties"] if ties == "split" else 0  # the bar shows what the rate is over
    return {
        "a": a,
        "b": b,
        "rate": rate,
        "bar": bar_geometry(rate["wins_b"], counted_ties, rate["wins_a"], rate["rate"], rate["ci"]),
        "words": verdict_words(rate["words"], a=a.name, b=b.name, n=rate["n"]),
        "words_code": rate["words"],
        "ties_text": TIES_TEXT[ties](),
        "bias": pair["position_bias"],
        "pairs": pair["pairs"],
        "final": True,
    }


def _live_cards(run: PairwiseRun, experiments: list) -> list[dict]:
    counts = pairwise_live_counts(run=run)
    cards = []
    for i, a in enumerate(experiments):
        for b in experiments[i + 1 :]:
            seen = counts.get((a.pk, b.pk), {})
            rate = {
                k: seen.get(v, 0) for k, v in (("wins_b", "B"), ("wins_a", "A"), ("ties", "tie"))
            }
            rate["unknown"] = seen.get("unknown", 0)
            bar = bar_geometry(rate["wins_b"], rate["ties"], rate["wins_a"], None, None)
            cards.append(
                {
                    "a": a,
                    "b": b,
                    "rate": rate,
                    "bar": bar,
                    "final": False,
                    "inconsistent": seen.get("inconsistent", 0),
                }
            )
    return cards


def bar_geometry(wins_b: int, ties: int, wins_a: int, rate, ci) -> dict:
    """The win / tie / lose bar as SVG positions in percent of its width: B's wins from the
    left, then ties, then A's wins; B's win rate as a point and its interval as a whisker on
    the same 0–100 % scale (with ties split the point falls inside the ties, half way)."""
    total = wins_b + ties + wins_a
    segments, x = [], 0.0
    for kind, n in (("pass", wins_b), ("tie", ties), ("fail", wins_a)):
        width = 100 * n / total if total else 0.0
        segments.append({"kind": kind, "n": n, "x": f"{x:.2f}", "width": f"{width:.2f}"})
        x += width
    return {
        "segments": segments,
        "total": total,
        "rate": None if rate is None else f"{100 * rate:.2f}",
        "ci": None if not ci else (f"{100 * ci[0]:.2f}", f"{100 * ci[1]:.2f}"),
        "ticks": [{"x": t, "anchor": a} for t, a in TICKS],
    }


TICKS = ((0, "start"), (25, "middle"), (50, "middle"), (75, "middle"), (100, "end"))


def verdict_words(code: str, *, a: str, b: str, n: int) -> str:
    """The sign test and interval's conclusion in words (the statistics give a code), phrased
    as the compare page phrases its verdicts."""
    if code == B_BETTER:
        return _("%(b)s is better than %(a)s") % {"a": a, "b": b}
    if code == A_BETTER:
        return _("%(a)s is better than %(b)s") % {"a": a, "b": b}
    if code == NO_DIFFERENCE:
        return _("no detectable difference at n = %(n)s") % {"n": n}
    return _("nothing to compare yet")


def leaderboard_rows(*, run: PairwiseRun) -> list[dict]:
    """The Bradley–Terry leaderboard, strongest first (unfitted experiments last)."""
    board = run.summary.get("leaderboard")
    if not board:
        return []
    experiments = {str(e.public_id): e for e in run_experiments(run=run)}
    rows = [{**model, "experiment": experiments[model["name"]]} for model in board["models"]]
    return sorted(rows, key=lambda row: (row["rank"] is None, row["rank"] or 0))


# A judge is flagged as strongly position-biased when at least this share of its pairs changed
# with the order and the pairs that did lean to one slot beyond chance (the share's interval
# stays clear of 50 %): its ties then say more about the order than about the outputs.
STRONG_BIAS_INCONSISTENT = 0.25


def strong_position_bias(bias: dict | None) -> dict | None:
    """The page's warning when the judge strongly favours one position: the share of the
    order-dependent pairs that leaned to the favoured slot, and whether it is the first."""
    if not bias or bias.get("inconsistent_rate") is None:
        return None
    share, ci = bias.get("first_position_share"), bias.get("first_position_ci")
    if share is None or not ci or bias["inconsistent_rate"] < STRONG_BIAS_INCONSISTENT:
        return None
    if ci[0] > 0.5:
        return {"share": share, "first": True}
    if ci[1] < 0.5:
        return {"share": 1 - share, "first": False}
    return None
