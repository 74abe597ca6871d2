"""The dashboard's view model: one card per evaluator, built from its stored Aggregate."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from assay.templatetags.assay_tags import MIN_WHISKER, word
from evaluators.kinds import kind_get
from evaluators.policies import describe_policy

from ..models import Experiment
from ..stats import COUNT_KEYS
from ..stats.interval_settings import interval_settings, pass_interval
from .aggregates import tag_intervals_from_counts
from .standing import relative_standing


def interval_words(settings: dict) -> str:
    """How the card's intervals were computed, in the page's language (the words of
    stats.interval_settings.interval_text)."""
    if settings["method"] == "none":
        return _("no intervals")
    text = _("%(level)s%% bootstrap, %(iterations)s resamples, n ≥ %(min)s") % {
        "level": f"{settings['confidence'] * 100:g}",
        "iterations": f"{settings['iterations']:,}",
        "min": settings["min_sample"],
    }
    if settings["exact_garak"]:
        text += _(", garak's exact resampling (seed %(seed)s)") % {"seed": settings["seed"]}
    return text


def dashboard_cards(experiment: Experiment) -> list[dict]:
    """Everything a card shows, in binding order; no per-result queries."""
    cards = []
    bindings = experiment.bindings.select_related(
        "evaluator_version__evaluator", "aggregate", "calibration"
    )
    for binding in bindings.order_by("position"):
        summary = getattr(binding, "aggregate", None)
        cards.append(_card(binding, summary.summary if summary else None))
    return cards


def _card(binding, summary: dict | None) -> dict:
    version = binding.evaluator_version
    card = {
        "binding": binding,
        "name": version.evaluator.name,
        "version": version.version,
        "meaning": version.score_meaning,
        "policy": describe_policy(binding.policy, version.score_meaning),
        "summary": summary,
    }
    if summary is None:
        return card
    evaluated, processed = summary["total_evaluated"], summary["total_processed"]
    card["bar"] = [
        (kind, summary[key], summary[key] / processed if processed else 0)
        for kind, key in COUNT_KEYS.items()
    ]
    card["pass_ci"] = pass_interval(summary.get("fail_rate_ci"))
    card["whisker"] = (
        bool(card["pass_ci"]) and card["pass_ci"][1] - card["pass_ci"][0] > MIN_WHISKER
    )
    settings = interval_settings(summary.get("interval_settings"))
    card["interval_text"] = interval_words(settings)
    card["interval_method"], card["min_sample"] = settings["method"], settings["min_sample"]
    card["ci_label"] = _("%(level)s%% CI") % {"level": f"{settings['confidence'] * 100:g}"}
    card["ci_note"] = _ci_note(evaluated, settings) if not card["pass_ci"] else ""
    card["unknown_why"] = unknown_why(summary.get("statuses") or {})
    card["histogram"] = _histogram(summary)
    card["tags"], card["tags_clustered"] = _tags(summary, settings)
    card["standing"] = relative_standing(binding=binding, pass_rate=summary.get("pass_rate"))
    card["measured"] = getattr(binding, "calibration", None)
    return card


def usage_overview(experiment: Experiment, cards: list[dict]) -> dict:
    """Latency, tokens and cost of the target and of each evaluator, and the run's total."""
    target = (experiment.target_summary or {}).get("usage")
    judges = [
        {
            "name": card["name"],
            "version": card["version"],
            "usage": card["summary"]["usage"],
            "free": _calls_no_model(card["binding"]),
        }
        for card in cards
        if card.get("summary") and card["summary"].get("usage")
    ]
    costs = [u["cost"] for u in [target, *(j["usage"] for j in judges)] if u and u["cost"]]
    return {
        "target": target,
        "target_reused": (experiment.target_summary or {}).get("outputs_from_name"),
        "target_reused_id": (experiment.target_summary or {}).get("outputs_from"),
        "evaluators": judges,
        "total_cost": sum(costs) if costs else None,
        "shown": bool(target or judges),
    }


def unknown_why(statuses: dict) -> str:
    """Why rows are unknown, "14 error, 2 timeout", joined in the page's language (Chinese
    lists take 、, not an ASCII comma); empty when every row succeeded."""
    parts = [f"{n} {word(status)}" for status, n in statuses.items() if status != "success" and n]
    return pgettext("list separator", ", ").join(parts)


def _calls_no_model(binding) -> bool:
    """Whether the evaluator calls no model (a code kind runs on the CPU queue): its rows cost
    nothing, so the card reads "—", not "$0.00" nor "no price known" (the API keeps null)."""
    return kind_get(binding.evaluator_version.evaluator.kind).queue == "code"


def _ci_note(evaluated: int, settings: dict) -> str:
    if settings["method"] == "none":
        return _("intervals are off for this run")
    if not evaluated:
        return _("nothing evaluated")
    return _("n = %(n)s < %(min)s: no interval") % {"n": evaluated, "min": settings["min_sample"]}


def _tags(summary: dict, settings: dict) -> tuple[list[dict], bool | None]:
    """The by-tag rows, largest groups first (a rate over 3 rows reads as loudly as one over 300
    otherwise), each with n, its pass rate and that rate's interval computed as the card's; and
    whether those intervals are clustered by row (True), treat repetitions as independent rows
    (False, an aggregate stored before tags had intervals) or the run has no repetitions
    (None)."""
    tags = summary.get("tags") or {}
    repeated = bool(summary.get("repetitions"))
    stored = summary.get("tag_fail_rate_ci")
    if stored is None and settings["method"] != "none":
        calibration = summary.get("calibration") or {}
        stored = tag_intervals_from_counts(tags, calibration=calibration, settings=settings)
    rows = [
        {
            "tag": tag,
            "n": row["total_evaluated"],
            "passed": row["passed"],
            "fails": row["fails"],
            "nones": row["nones"],
            "rate": row["passed"] / row["total_evaluated"] if row["total_evaluated"] else None,
            "ci": pass_interval((stored or {}).get(tag)),
        }
        for tag, row in tags.items()
    ]
    rows.sort(key=lambda row: (-row["n"], row["tag"]))
    clustered = None
    if repeated:
        clustered = "tag_fail_rate_ci" in summary
    return rows, clustered


def _histogram(summary: dict) -> list[dict]:
    histogram = summary.get("histogram") or {}
    counts, edges = histogram.get("counts") or [], histogram.get("edges") or []
    peak = max(counts) if counts else 0
    return [
        {"from": edges[i], "to": edges[i + 1], "count": c, "height": (c / peak) if peak else 0}
        for i, c in enumerate(counts)
    ]
