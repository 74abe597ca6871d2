"""The dashboard's view model: one card per evaluator, built from its stored Aggregate."""

from __future__ import annotations

from assay.templatetags.assay_tags import MIN_WHISKER
from evaluators.policies import describe_policy

from ..models import Experiment
from ..stats import COUNT_KEYS
from ..stats.interval_settings import interval_settings, interval_text, pass_interval
from .standing import relative_standing


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
    card["interval_text"] = interval_text(settings)
    card["ci_label"] = f"{settings['confidence'] * 100:g}% CI"
    card["ci_note"] = _ci_note(evaluated, settings) if not card["pass_ci"] else ""
    card["histogram"] = _histogram(summary)
    # the largest groups first: a rate over 3 rows reads as loudly as one over 300 otherwise
    card["tags"] = sorted(
        (summary.get("tags") or {}).items(), key=lambda kv: (-kv[1]["total_evaluated"], kv[0])
    )
    card["standing"] = relative_standing(binding=binding, pass_rate=summary.get("pass_rate"))
    card["measured"] = getattr(binding, "calibration", None)
    return card


def usage_overview(experiment: Experiment, cards: list[dict]) -> dict:
    """Latency, tokens and cost of the target and of each evaluator, and the run's total."""
    target = (experiment.target_summary or {}).get("usage")
    judges = [
        {"name": card["name"], "version": card["version"], "usage": card["summary"]["usage"]}
        for card in cards
        if card.get("summary") and card["summary"].get("usage")
    ]
    costs = [u["cost"] for u in [target, *(j["usage"] for j in judges)] if u and u["cost"]]
    return {
        "target": target,
        "target_reused": (experiment.target_summary or {}).get("outputs_from_name"),
        "evaluators": judges,
        "total_cost": sum(costs) if costs else None,
        "shown": bool(target or judges),
    }


def _ci_note(evaluated: int, settings: dict) -> str:
    if settings["method"] == "none":
        return "intervals are off for this run"
    if not evaluated:
        return "nothing evaluated"
    return f"n = {evaluated} < {settings['min_sample']}: no interval"


def _histogram(summary: dict) -> list[dict]:
    histogram = summary.get("histogram") or {}
    counts, edges = histogram.get("counts") or [], histogram.get("edges") or []
    peak = max(counts) if counts else 0
    return [
        {"from": edges[i], "to": edges[i + 1], "count": c, "height": (c / peak) if peak else 0}
        for i, c in enumerate(counts)
    ]
