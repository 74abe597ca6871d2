"""Compare experiments on the same evalset: paired statistics per evaluator and a row diff.

Rows pair by the item's stable id; evaluators pair by evaluator (any versions). Items present
on one side only are counted and listed, never dropped silently.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.utils.translation import gettext

from assay.models import Workspace
from assay.safety.csvcells import csv_safe_row
from evaluators.turns import TARGET

from ..engine.turns import result_turns
from ..models import Aggregate, Experiment, Result
from ..selectors import experiment_get
from ..stats import compare_paired
from ..stats.clustered import collapse_repetitions
from .per_turn import per_turn_outcomes
from .textdiff import marked_sides, text_diff

FILTERS = ("all", "regressions", "improvements", "unknown", "changed")


@dataclass
class EvaluatorComparison:
    evaluator_id: int
    name: str
    baseline_version: str
    candidate_version: str
    stats: dict
    baseline_binding: int
    candidate_binding: int

    @property
    def versions_differ(self) -> bool:
        return self.baseline_version != self.candidate_version


@dataclass
class CandidateComparison:
    experiment: Experiment
    evaluators: list[EvaluatorComparison] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


def compare_experiments(
    *, workspace: Workspace, baseline: Experiment, candidates: list[Experiment], seed: int = 0
) -> list[CandidateComparison]:
    """Paired statistics of every candidate against the baseline, evaluator by evaluator."""
    check_comparable(workspace, baseline, candidates)
    base_bindings = bindings_by_evaluator(baseline)
    out = []
    for candidate in candidates:
        cand_bindings = bindings_by_evaluator(candidate)
        result = CandidateComparison(experiment=candidate)
        for evaluator_id, base in base_bindings.items():
            cand = cand_bindings.get(evaluator_id)
            if cand is None:
                result.unmatched.append(base.evaluator_version.evaluator.name)
                continue
            stats = compare_paired(
                evaluator_side(baseline, base), evaluator_side(candidate, cand), seed=seed
            )
            result.evaluators.append(
                EvaluatorComparison(
                    evaluator_id=evaluator_id,
                    name=base.evaluator_version.evaluator.name,
                    baseline_version=base.evaluator_version.version,
                    candidate_version=cand.evaluator_version.version,
                    stats=_with_counts(stats),
                    baseline_binding=base.pk,
                    candidate_binding=cand.pk,
                )
            )
        result.unmatched += [
            b.evaluator_version.evaluator.name
            for e, b in cand_bindings.items()
            if e not in base_bindings
        ]
        out.append(result)
    return out


# The rows a comparison lists by how their verdict moved (counted in the CSV and the summary).
CHANGE_LISTS = (
    "regressions",
    "improvements",
    "to_unknown",
    "from_unknown",
    "only_in_baseline",
    "only_in_candidate",
)


def _with_counts(stats) -> dict:
    data = stats.to_dict()
    data["counts"] = {key: len(data[key]) for key in CHANGE_LISTS}
    data["counts"]["unknown_flips"] = data["counts"]["to_unknown"] + data["counts"]["from_unknown"]
    return data


def check_comparable(workspace, baseline, candidates) -> None:
    if not candidates:
        raise ValidationError({"candidates": gettext("Choose at least one candidate experiment.")})
    evalset = baseline.evalset_version.evalset_id
    for experiment in [baseline, *candidates]:
        if experiment.workspace_id != workspace.pk:
            raise ValidationError({"candidates": gettext("No such experiment in this workspace.")})
        if experiment.evalset_version.evalset_id != evalset:
            raise ValidationError(
                {
                    "candidates": gettext(
                        "%(name)r runs on another evalset; only runs on the same evalset can "
                        "be paired."
                    )
                    % {"name": experiment.name}
                }
            )
    if any(c.pk == baseline.pk for c in candidates):
        raise ValidationError({"candidates": gettext("The baseline cannot also be a candidate.")})


def bindings_by_evaluator(experiment: Experiment) -> dict:
    bindings = experiment.bindings.select_related("evaluator_version__evaluator")
    return {b.evaluator_version.evaluator_id: b for b in bindings.order_by("position")}


def evaluator_side(experiment: Experiment, binding) -> dict:
    """item id → (verdict, score) of one evaluator; an item's repetitions count once (their
    majority verdict and mean score)."""
    if binding.per_turn:  # its results are turns: the row's outcome is their aggregate
        outcomes = per_turn_outcomes(experiment=experiment, binding=binding)
    else:
        rows = Result.objects.filter(experiment=experiment, binding=binding).values_list(
            "item_uid", "verdict", "human_verdict", "score", "human_score"
        )
        outcomes = [
            (str(uid), hv or v, hs if hv and hs is not None else s)
            for uid, v, hv, s, hs in rows.iterator(5000)
        ]
    if experiment.repetitions == 1:
        return {uid: (verdict, score) for uid, verdict, score in outcomes}
    return collapse_repetitions(outcomes)


# ----------------------------------------------------------------------------- row diff


def diff_rows(
    *,
    baseline: Experiment,
    candidate: Experiment,
    comparison: EvaluatorComparison,
    flt: str = "all",
    tag: str = "",
) -> list[str]:
    """Item ids to show, regressions first, then improvements, unknown flips, the rest."""
    stats = comparison.stats
    order = {
        "regressions": stats["regressions"],
        "improvements": stats["improvements"],
        "unknown": stats["to_unknown"] + stats["from_unknown"],
    }
    one_sided = stats["only_in_baseline"] + stats["only_in_candidate"]
    if flt in order:
        ids = list(order[flt])
    else:
        changed = order["regressions"] + order["improvements"] + order["unknown"]
        rest = _unchanged(baseline, comparison, changed + one_sided)
        ids = changed if flt == "changed" else changed + rest + one_sided
    if tag:
        tagged = _tagged(baseline, comparison.baseline_binding, tag) | _tagged(
            candidate, comparison.candidate_binding, tag
        )
        ids = [i for i in ids if i in tagged]
    return ids


def _tagged(experiment: Experiment, binding_id: int, tag: str) -> set[str]:
    # JSON containment differs between SQLite and PostgreSQL; tags are short lists
    rows = Result.objects.filter(experiment=experiment, binding_id=binding_id)
    return {
        str(uid)
        for uid, tags in rows.values_list("item_uid", "tags").iterator(5000)
        if tag in (tags or [])
    }


def _unchanged(baseline, comparison, changed) -> list[str]:
    rows = Result.objects.filter(experiment=baseline, binding_id=comparison.baseline_binding)
    skip = set(changed)
    return [
        str(u)
        for u in rows.order_by("position").values_list("item_uid", flat=True)
        if str(u) not in skip
    ]


def diff_page(*, baseline: Experiment, candidate: Experiment, comparison, ids: list[str]) -> list:
    """Side-by-side rows for a page of item ids, with the text differences marked."""
    base = _results_by_uid(baseline, comparison.baseline_binding, ids)
    cand = _results_by_uid(candidate, comparison.candidate_binding, ids)
    stats = comparison.stats
    kinds = {
        **{i: "only in baseline" for i in stats["only_in_baseline"]},
        **{i: "only in candidate" for i in stats["only_in_candidate"]},
        **{i: "regression" for i in stats["regressions"]},
        **{i: "improvement" for i in stats["improvements"]},
        **{i: "unknown flip" for i in stats["to_unknown"] + stats["from_unknown"]},
    }
    turns = result_turns(results=[*base.values(), *cand.values()])
    rows = []
    for uid in ids:
        left, right = base.get(uid), cand.get(uid)
        rows.append(
            {
                "item": uid,
                # the item's row number in its evalset version (positions count from 0)
                "number": (left or right).row_number if (left or right) else None,
                "kind": kinds.get(uid, "unchanged"),
                "baseline": left,
                "candidate": right,
                "output_diff": marked_diff(
                    output_text(turns.get(left.pk) if left else None),
                    output_text(turns.get(right.pk) if right else None),
                ),
                "reason_diff": marked_diff(
                    left.reason if left else "", right.reason if right else ""
                ),
            }
        )
    return rows


def _results_by_uid(experiment, binding_id, ids) -> dict:
    rows = Result.objects.filter(experiment=experiment, binding_id=binding_id, item_uid__in=ids)
    return {str(r.item_uid): r for r in rows}


def output_text(turn: dict | None) -> str:
    """The text of a turn's outputs (every output field, one per line)."""
    fields = (turn or {}).get(TARGET) or {}
    texts = [c.get("text", "") for c in fields.values() if isinstance(c, dict)]
    return "\n".join(t for t in texts if isinstance(t, str))


def marked_diff(old: str, new: str) -> tuple[str, str]:
    """(old, new) as HTML with removed words in <del> and added words in <ins>.

    Every piece of text is escaped before it is wrapped: only our own tags are markup.
    """
    return marked_sides(text_diff(old, new))


# ----------------------------------------------------------------------------- pages and API


def comparison_context(*, workspace, params: dict) -> dict:
    """Everything the page, the API and the exports share."""
    baseline = experiment_get(workspace=workspace, public_id=params["baseline"])
    candidates = [experiment_get(workspace=workspace, public_id=c) for c in params["candidates"]]
    results = compare_experiments(workspace=workspace, baseline=baseline, candidates=candidates)
    focus_candidate = next(
        (r for r in results if str(r.experiment.public_id) == params["candidate"]), results[0]
    )
    evaluators = focus_candidate.evaluators
    # unless one is asked for, open on the evaluator with the most regressions
    most = max(evaluators, key=lambda e: len(e.stats["regressions"]), default=None)
    focus = next((e for e in evaluators if str(e.evaluator_id) == params["evaluator"]), most)
    ids = (
        diff_rows(
            baseline=baseline,
            candidate=focus_candidate.experiment,
            comparison=focus,
            flt=params["filter"],
            tag=params["tag"],
        )
        if focus
        else []
    )
    return {
        "baseline": baseline,
        "results": results,
        "focus_candidate": focus_candidate,
        "focus": focus,
        "ids": ids,
        "params": params,
        "chart": _chart(baseline, candidates, results),
    }


def _chart(baseline, candidates, results) -> list[dict]:
    """Pass rate with its CI per experiment, for each evaluator of the baseline."""
    rows = []
    experiments = [baseline, *candidates]
    aggregates = Aggregate.objects.filter(experiment__in=experiments).select_related(
        "binding__evaluator_version__evaluator", "experiment"
    )
    by_evaluator: dict = {}
    for aggregate in aggregates:
        evaluator = aggregate.binding.evaluator_version.evaluator
        ci = aggregate.summary.get("fail_rate_ci")
        by_evaluator.setdefault((evaluator.pk, evaluator.name), []).append(
            {
                "experiment": aggregate.experiment.name,
                "baseline": aggregate.experiment == baseline,
                "rate": aggregate.summary.get("pass_rate"),
                "ci": (1 - ci[1], 1 - ci[0]) if ci else None,
                "order": experiments.index(aggregate.experiment),
            }
        )
    for (_, name), bars in sorted(by_evaluator.items(), key=lambda kv: kv[0][1]):
        rows.append({"evaluator": name, "bars": sorted(bars, key=lambda b: b["order"])})
    return rows


def paged_rows(*, context: dict, size: int, number) -> tuple:
    """One page of the row diff for the focused candidate and evaluator."""
    page = Paginator(context["ids"], size).get_page(number)
    if context["focus"] is None:
        return page, []
    rows = diff_page(
        baseline=context["baseline"],
        candidate=context["focus_candidate"].experiment,
        comparison=context["focus"],
        ids=list(page.object_list),
    )
    return page, rows


CSV_FIELDS = [
    "candidate",
    "evaluator",
    "baseline_version",
    "candidate_version",
    "n_paired",
    "pass_rate_baseline",
    "pass_rate_candidate",
    "pass_rate_delta",
    "pass_rate_delta_ci_low",
    "pass_rate_delta_ci_high",
    "mcnemar_p",
    "mean_score_delta",
    *CHANGE_LISTS,
    "plain_words",
]


def comparison_csv(body: dict) -> str:
    """One CSV row per candidate × evaluator."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS)
    writer.writeheader()
    for candidate in body["candidates"]:
        for ev in candidate["evaluators"]:
            s, ci = ev["stats"], ev["stats"]["pass_rate_delta_ci"] or (None, None)
            writer.writerow(
                csv_safe_row(
                    {
                        "candidate": candidate["name"],
                        "evaluator": ev["name"],
                        "baseline_version": ev["baseline_version"],
                        "candidate_version": ev["candidate_version"],
                        "n_paired": s["n_paired"],
                        "pass_rate_baseline": s["pass_rate_baseline"],
                        "pass_rate_candidate": s["pass_rate_candidate"],
                        "pass_rate_delta": s["pass_rate_delta"],
                        "pass_rate_delta_ci_low": ci[0],
                        "pass_rate_delta_ci_high": ci[1],
                        "mcnemar_p": s["mcnemar_p"],
                        "mean_score_delta": s["mean_score_delta"],
                        "regressions": len(s["regressions"]),
                        "improvements": len(s["improvements"]),
                        "to_unknown": len(s["to_unknown"]),
                        "from_unknown": len(s["from_unknown"]),
                        "only_in_baseline": len(s["only_in_baseline"]),
                        "only_in_candidate": len(s["only_in_candidate"]),
                        "plain_words": s["plain_words"],
                    }
                )
            )
    return buffer.getvalue()


def comparison_json(context: dict) -> dict:
    baseline = context["baseline"]
    return {
        "baseline": {
            "id": str(baseline.public_id),
            "name": baseline.name,
            "evalset_version": baseline.evalset_version.version,
        },
        "candidates": [
            {
                "id": str(r.experiment.public_id),
                "name": r.experiment.name,
                "evalset_version": r.experiment.evalset_version.version,
                "unmatched": r.unmatched,
                "evaluators": [
                    {
                        "evaluator_id": e.evaluator_id,
                        "name": e.name,
                        "baseline_version": e.baseline_version,
                        "candidate_version": e.candidate_version,
                        "versions_differ": e.versions_differ,
                        "stats": e.stats,
                    }
                    for e in r.evaluators
                ],
            }
            for r in context["results"]
        ],
    }
