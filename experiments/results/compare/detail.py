"""One item of a comparison: its inputs once, then the baseline's and the candidate's result
of one evaluator side by side, with the text difference of the two outputs marked.

Reads only. Both runs are resolved inside the workspace and the item must be scored by one of
them, so a foreign id or an item of neither run is a 404.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from django.http import Http404
from django.utils.safestring import SafeString
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from assay.models import Workspace
from assay.vocabulary import Verdict
from evaluators.llm.render import prompt_text
from evaluators.turns import DATASET

from ...models import EvaluatorBinding, Experiment, Result
from ...scoring.turns import result_turn
from ...selectors import experiment_get, results_list
from ...stats.clustered import collapse_repetitions
from ..textdiff import diff_json, marked_sides, text_diff
from . import bindings_by_evaluator, check_comparable, output_text

# the row diff's words for how an item's verdict moved (its kinds), as the page shows them
KIND_LABELS = {
    "regression": _("regression"),
    "improvement": _("improvement"),
    "unknown flip": _("unknown flip"),
    "unchanged": _("unchanged"),
    "only in baseline": _("only in baseline"),
    "only in candidate": _("only in candidate"),
}
# a prompt or raw answer past this starts collapsed, so the outputs and verdicts stay in view
LONG_CHARS, LONG_LINES = 600, 12


def is_long(text: str) -> bool:
    return len(text) > LONG_CHARS or text.count("\n") >= LONG_LINES


@dataclass
class DetailSide:
    """One run's results of the item for one evaluator (every repetition, the first shown)."""

    experiment: Experiment
    results: list[Result]
    output_html: SafeString = SafeString("")

    @property
    def result(self) -> Result | None:
        return self.results[0] if self.results else None

    @property
    def verdict(self) -> str | None:
        """The item's verdict in this run, as the comparison counts it: the majority of its
        repetitions, a human correction winning; None when the run did not score it."""
        if not self.results:
            return None
        rows = [(r.item_id, r.final_verdict, r.score) for r in self.results]  # one item
        return collapse_repetitions(rows)[self.results[0].item_id][0]

    @property
    def row_number(self) -> int | None:
        """The item's row in this run's evalset version (positions count from 0)."""
        return self.result.row_number if self.result else None

    @cached_property
    def turn(self) -> dict:
        """The turn the shown result's evaluator received."""
        return result_turn(result=self.result) if self.result else {}

    @cached_property
    def output(self) -> str:
        return output_text(self.turn)

    @cached_property
    def prompt(self) -> str:
        return prompt_text(self.result.rendered_request) if self.result else ""

    @property
    def prompt_long(self) -> bool:
        return is_long(self.prompt)

    @property
    def answer_long(self) -> bool:
        return is_long(self.result.raw_answer or "") if self.result else False

    @property
    def inputs(self) -> dict:
        return self.turn.get(DATASET) or {}

    @property
    def verdict_label(self) -> str:
        return Verdict(self.result.final_verdict).label if self.result else ""


@dataclass
class ItemComparison:
    """The item as both runs saw it, for one evaluator they share."""

    item_id: str
    binding: EvaluatorBinding
    baseline: DetailSide
    candidate: DetailSide
    runs: list[tuple[str, str, str]]

    @property
    def evaluator(self):
        return self.binding.evaluator_version.evaluator

    @property
    def kind(self) -> str:
        return change_kind(self.baseline.verdict, self.candidate.verdict)

    @property
    def kind_label(self) -> str:
        return KIND_LABELS[self.kind]

    @property
    def row_number(self) -> int | None:
        return self.baseline.row_number or self.candidate.row_number

    @property
    def inputs(self) -> dict:
        """The dataset fields, shown once: the baseline's (the candidate's if only it has the
        item)."""
        return self.baseline.inputs if self.baseline.result else self.candidate.inputs

    @property
    def inputs_changed(self) -> dict:
        """The candidate's dataset fields that differ from the baseline's: another version of
        the evalset may have edited the row."""
        if self.baseline.result is None or self.candidate.result is None:
            return {}
        before = self.baseline.inputs
        return {k: v for k, v in self.candidate.inputs.items() if before.get(k) != v}


def change_kind(before: str | None, after: str | None) -> str:
    """How the item's verdict moved, in the row diff's words (None: not in that run)."""
    if before is None or after is None:
        return "only in candidate" if before is None else "only in baseline"
    if before == after:
        return "unchanged"
    if Verdict.UNKNOWN in (before, after):
        return "unknown flip"
    return "regression" if before == Verdict.PASS else "improvement"


def item_comparison(
    *, workspace: Workspace, baseline_id, candidate_id, item_id, evaluator: str = ""
) -> ItemComparison:
    """One item of the baseline and the candidate side by side for one shared evaluator
    (`evaluator`: its id or public id; by default the first the runs share).

    404 for a run of another workspace, an evaluator the runs do not share, or an item neither
    run scored; a ValidationError when the two runs cannot be paired at all.
    """
    baseline = experiment_get(workspace=workspace, public_id=baseline_id)
    candidate = experiment_get(workspace=workspace, public_id=candidate_id)
    check_comparable(workspace, baseline, [candidate])
    base_binding, cand_binding = shared_bindings(baseline, candidate, evaluator)
    left = DetailSide(baseline, _item_results(baseline, base_binding, item_id))
    right = DetailSide(candidate, _item_results(candidate, cand_binding, item_id))
    if left.result is None and right.result is None:
        raise Http404(gettext("Neither run scored this item."))
    runs = text_diff(left.output, right.output)
    left.output_html, right.output_html = marked_sides(runs)
    return ItemComparison(str(item_id), base_binding, left, right, runs)


def shared_bindings(
    baseline: Experiment, candidate: Experiment, evaluator: str = ""
) -> tuple[EvaluatorBinding, EvaluatorBinding]:
    """Each run's binding of the evaluator `evaluator` names (any, when it names none); 404
    when the two runs do not share it."""
    base, cand = bindings_by_evaluator(baseline), bindings_by_evaluator(candidate)
    shared = [b for key, b in base.items() if key in cand and _names(evaluator, b)]
    if not shared:
        raise Http404(gettext("The two runs do not share this evaluator."))
    return shared[0], cand[shared[0].evaluator_version.evaluator_id]


def _names(ref: str, binding: EvaluatorBinding) -> bool:
    evaluator = binding.evaluator_version.evaluator
    return not ref or str(ref).strip() in (str(evaluator.pk), str(evaluator.public_id))


def _item_results(experiment: Experiment, binding: EvaluatorBinding, item_id) -> list[Result]:
    """The item's results of one binding, every repetition, with the fields the list defers
    (the turn, the rendered prompt and the raw answer are what this view is for)."""
    rows = results_list(experiment=experiment, evaluator=str(binding.pk), item=str(item_id))
    return list(rows.defer(None).select_related("corrected_by").order_by("repeat"))


# ----------------------------------------------------------------------------- API


def item_comparison_json(detail: ItemComparison) -> dict:
    """The API's body: the item, its inputs once, the output diff, and both sides."""
    evaluator = detail.evaluator
    return {
        "item_id": detail.item_id,
        "row_number": detail.row_number,
        "kind": detail.kind,
        "evaluator": {
            "id": evaluator.pk,
            "public_id": str(evaluator.public_id),
            "name": evaluator.name,
        },
        "inputs": detail.inputs,
        "inputs_changed": detail.inputs_changed,
        "output_diff": diff_json(detail.runs),
        "baseline": _side_json(detail.baseline),
        "candidate": _side_json(detail.candidate),
    }


def _side_json(side: DetailSide) -> dict:
    run = {"id": str(side.experiment.public_id), "name": side.experiment.name}
    return {"experiment": run, "result": _result_json(side) if side.result else None}


def _result_json(side: DetailSide) -> dict:
    r = side.result
    corrected_score = r.human_verdict and r.human_score is not None
    return {
        "id": r.pk,
        "row_number": side.row_number,
        "repetitions": len(side.results),
        "item_verdict": side.verdict,
        "evaluator_version": r.binding.evaluator_version.version,
        "verdict": r.final_verdict,
        "evaluator_verdict": r.verdict,
        "human_verdict": r.human_verdict or None,
        "score": r.human_score if corrected_score else r.score,
        "evaluator_score": r.score,
        "status": r.status,
        "reason": r.reason,
        "error": r.error,
        "output": side.output,
        "rendered_prompt": side.prompt,
        "raw_answer": r.raw_answer,
    }
