"""Compare experiments on the same evalset: paired statistics per evaluator and a row diff.

Rows pair by the item's stable id; evaluators pair by evaluator (any versions). Items present
on one side only are counted and listed, never dropped silently.

The package: this module (the comparison and its row diff), `store` (the paired statistics
stored per pair of bindings), `sql` (the same pairing done by PostgreSQL), `detail` (one item
side by side) and `prepare` (what a completed run's first pages count ahead).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Case, F, FloatField, Q, TextField, When
from django.db.models.functions import Cast
from django.utils.translation import gettext

from assay.models import Workspace
from assay.safety.csvcells import csv_safe_row
from evalsets.models import EvalSetItem
from evaluators.turns import TARGET

from ...models import Aggregate, Experiment, Result
from ...scoring.turns import result_turns
from ...selectors import experiment_get
from ...stats.clustered import collapse_repetitions
from ..grid import FINAL_VERDICT
from ..per_turn import per_turn_outcomes
from ..textdiff import marked_sides, text_diff
from .store import FILTER_SEGMENTS, StoredPair, pair_stats

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
    pair: StoredPair | None = None

    @property
    def versions_differ(self) -> bool:
        return self.baseline_version != self.candidate_version


@dataclass
class CandidateComparison:
    experiment: Experiment
    evaluators: list[EvaluatorComparison] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)


def compare_experiments(
    *,
    workspace: Workspace,
    baseline: Experiment,
    candidates: list[Experiment],
    seed: int = 0,
    with_ids: bool = True,
) -> list[CandidateComparison]:
    """Paired statistics of every candidate against the baseline, evaluator by evaluator
    (stored after the first read of finished runs); `with_ids` puts the flipped rows' item ids
    in the statistics, as the API and the JSON export carry them (a page reads its own)."""
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
            pair = pair_stats(
                baseline=baseline, base=base, candidate=candidate, cand=cand, seed=seed
            )
            result.evaluators.append(_evaluator(evaluator_id, base, cand, pair, with_ids))
        result.unmatched += [
            b.evaluator_version.evaluator.name
            for e, b in cand_bindings.items()
            if e not in base_bindings
        ]
        out.append(result)
    return out


def _evaluator(evaluator_id: int, base, cand, pair: StoredPair, with_ids: bool):
    stats = {**pair.stats, **(pair.lists() if with_ids else {})}
    stats.pop("spans", None)
    return EvaluatorComparison(
        evaluator_id=evaluator_id,
        name=base.evaluator_version.evaluator.name,
        baseline_version=base.evaluator_version.version,
        candidate_version=cand.evaluator_version.version,
        stats=stats,
        baseline_binding=base.pk,
        candidate_binding=cand.pk,
        pair=pair,
    )


# The rows a comparison lists by how their verdict moved (counted in the CSV and the summary).
CHANGE_LISTS = (
    "regressions",
    "improvements",
    "to_unknown",
    "from_unknown",
    "only_in_baseline",
    "only_in_candidate",
)


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
        outcomes = _result_outcomes(experiment, binding)
    if experiment.repetitions == 1:
        return {uid: (verdict, score) for uid, verdict, score in outcomes}
    return collapse_repetitions(outcomes)


# the corrected score: a human's, when they gave one with their verdict
FINAL_SCORE = Case(
    When(~Q(human_verdict="") & Q(human_score__isnull=False), then=F("human_score")),
    default=F("score"),
    output_field=FloatField(),
)


def _result_outcomes(experiment: Experiment, binding) -> list[tuple]:
    """(item id, final verdict, final score) of each result in row order, the corrections
    applied by the database; on PostgreSQL the id comes as text (a million UUID objects, made
    and turned into text again, cost seconds). The id is the item's: naming the version's rows
    lets the planner hash only them (1.0 s at 10⁶ rows instead of 1.45 with a draft beside)."""
    version = experiment.evalset_version
    rows = Result.objects.filter(
        experiment=experiment,
        binding=binding,
        item__evalset_id=version.evalset_id,
        item__version_id=version.pk,
    ).annotate(final_verdict=FINAL_VERDICT, final_score=FINAL_SCORE)
    if connection.vendor == "postgresql":
        as_text = rows.annotate(uid=Cast("item__item_id", TextField()))
        return list(as_text.values_list("uid", "final_verdict", "final_score"))
    found = rows.values_list("item__item_id", "final_verdict", "final_score")
    return [(str(uid), verdict, score) for uid, verdict, score in found]


# ----------------------------------------------------------------------------- row diff


def diff_rows(
    *,
    baseline: Experiment,
    candidate: Experiment,
    comparison: EvaluatorComparison,
    flt: str = "all",
    tag: str = "",
) -> list[str]:
    """Item ids to show, regressions first, then improvements, unknown flips, the rest (every
    id of the filter: a page reads only its own through `diff_slice`)."""
    ids = [uid for uid, _kind in _filtered(comparison, flt)]
    if tag:
        tagged = _tagged(baseline, comparison.baseline_binding, tag) | _tagged(
            candidate, comparison.candidate_binding, tag
        )
        ids = [i for i in ids if i in tagged]
    return ids


def _filtered(comparison: EvaluatorComparison, flt: str) -> list[tuple[str, str]]:
    return comparison.pair.slice(*comparison.pair.span(_filter(flt)))


def _filter(flt: str) -> str:
    return flt if flt in FILTER_SEGMENTS else "all"


def diff_count(comparison: EvaluatorComparison, flt: str) -> int:
    """Rows the filter lists, from the stored lists' lengths."""
    return comparison.pair.span(_filter(flt))[1]


def diff_slice(comparison: EvaluatorComparison, flt: str, start: int, size: int) -> list:
    """(item id, kind) of `size` rows of the filter from `start`, read alone."""
    first, count = comparison.pair.span(_filter(flt))
    start = min(max(0, start), count)
    return comparison.pair.slice(first + start, min(size, count - start))


def _tagged(experiment: Experiment, binding_id: int, tag: str) -> set[str]:
    # JSON containment differs between SQLite and PostgreSQL; tags are short lists
    rows = Result.objects.filter(experiment=experiment, binding_id=binding_id)
    if connection.vendor == "postgresql":
        # the tagged rows' ids only, found by jsonb containment and sent as text: at 10⁶ rows
        # parsing every row's tags into Python lists was most of a tag filter's time
        found = rows.filter(tags__contains=[tag]).annotate(uid=Cast("item__item_id", TextField()))
        return set(found.values_list("uid", flat=True).iterator(5000))
    return {
        str(uid)
        for uid, tags in rows.values_list("item__item_id", "tags").iterator(5000)
        if tag in (tags or [])
    }


def diff_page(
    *, baseline: Experiment, candidate: Experiment, comparison, rows: list[tuple[str, str]]
) -> list:
    """Side-by-side rows for a page of (item id, kind), with the text differences marked."""
    ids = [uid for uid, _kind in rows]
    base = _results_by_uid(baseline, comparison.baseline_binding, ids)
    cand = _results_by_uid(candidate, comparison.candidate_binding, ids)
    turns = result_turns(results=[*base.values(), *cand.values()])
    return [_diff_row(uid, kind, base.get(uid), cand.get(uid), turns) for uid, kind in rows]


def _diff_row(uid: str, kind: str, left, right, turns: dict) -> dict:
    either = left or right
    return {
        "item": uid,
        # the item's row number in its evalset version (positions count from 0)
        "number": either.row_number if either else None,
        "kind": kind,
        "baseline": left,
        "candidate": right,
        "output_diff": marked_diff(
            output_text(turns.get(left.pk) if left else None),
            output_text(turns.get(right.pk) if right else None),
        ),
        "reason_diff": marked_diff(left.reason if left else "", right.reason if right else ""),
    }


def _results_by_uid(experiment, binding_id, ids) -> dict:
    """The results of these item ids, found by their rows' positions (the item id has no
    index among a million results; the experiment's positions have)."""
    items = EvalSetItem.objects.of_version(experiment.evalset_version).filter(item_id__in=ids)
    uids = dict(items.values_list("position", "item_id"))
    rows = Result.objects.filter(experiment=experiment, binding_id=binding_id, position__in=uids)
    return {str(uids[r.position]): r for r in rows}


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


def comparison_context(*, workspace, params: dict, with_ids: bool = False) -> dict:
    """Everything the page, the API and the exports share (`with_ids`: the flipped rows' ids
    in each evaluator's statistics, for the API and the JSON export)."""
    baseline = experiment_get(workspace=workspace, public_id=params["baseline"])
    candidates = [experiment_get(workspace=workspace, public_id=c) for c in params["candidates"]]
    results = compare_experiments(
        workspace=workspace, baseline=baseline, candidates=candidates, with_ids=with_ids
    )
    focus_candidate = next(
        (r for r in results if str(r.experiment.public_id) == params["candidate"]), results[0]
    )
    evaluators = focus_candidate.evaluators
    # unless one is asked for, open on the evaluator with the most regressions
    most = max(evaluators, key=lambda e: e.stats["counts"]["regressions"], default=None)
    focus = next((e for e in evaluators if str(e.evaluator_id) == params["evaluator"]), most)
    return {
        "baseline": baseline,
        "results": results,
        "focus_candidate": focus_candidate,
        "focus": focus,
        **_diff_size(baseline, focus_candidate.experiment, focus, params),
        "params": params,
        "chart": _chart(baseline, candidates, results),
    }


def _diff_size(baseline, candidate, focus, params: dict) -> dict:
    """The row diff's count, from the stored lists; with a tag, the tagged ids themselves."""
    if focus is None:
        return {"diff_count": 0, "tagged": None}
    if not params["tag"]:
        return {"diff_count": diff_count(focus, params["filter"]), "tagged": None}
    tagged = _tagged_ids(baseline, candidate, focus, params)
    return {"diff_count": len(tagged), "tagged": tagged}


def _tagged_ids(baseline, candidate, focus, params: dict) -> list[str]:
    return diff_rows(
        baseline=baseline,
        candidate=candidate,
        comparison=focus,
        flt=params["filter"],
        tag=params["tag"],
    )


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
    """One page of the row diff for the focused candidate and evaluator: its ids read alone
    from the stored lists (with a tag, out of the tagged ones)."""
    page = Paginator(range(context["diff_count"]), size).get_page(number)
    focus, params = context["focus"], context["params"]
    if focus is None:
        return page, []
    candidate = context["focus_candidate"].experiment
    start = page.start_index() - 1 if context["diff_count"] else 0
    if context["tagged"] is not None:
        kinds = dict(_filtered(focus, params["filter"]))
        entries = [(uid, kinds[uid]) for uid in context["tagged"][start : start + size]]
    else:
        entries = diff_slice(focus, params["filter"], start, size)
    rows = diff_page(
        baseline=context["baseline"], candidate=candidate, comparison=focus, rows=entries
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
                        "regressions": s["counts"]["regressions"],
                        "improvements": s["counts"]["improvements"],
                        "to_unknown": s["counts"]["to_unknown"],
                        "from_unknown": s["counts"]["from_unknown"],
                        "only_in_baseline": s["counts"]["only_in_baseline"],
                        "only_in_candidate": s["counts"]["only_in_candidate"],
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
