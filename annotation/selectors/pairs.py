"""Reads of the sources a queue's items come from besides experiment results and traces
(`selectors`): an evalset version's rows, a pairwise run's judged pairs, and two experiments'
outputs for the same rows. Each answers {"items": [SourceItem]} or {"errors": {field:
[message]}} naming every id that is not the workspace's; snapshots are capped as the others.

A pair's snapshot holds the row (`input`, `reference`, `row_number`), both outputs
(`output_a`, `output_b`: A is the first experiment, the pairwise run's baseline) and which
experiment each side is (`sides`); a pairwise run's pair keeps its judge's outcome in `judge`
(hidden in blind queues as every judge is).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.safety.caps import cap_text
from assay.selectors import as_uuid, by_public_id, unknown_named
from assay.vocabulary import ResultStatus
from evalsets.models import EvalSetItem, EvalSetVersion, VersionStatus
from experiments.models import Experiment, PairwiseResult, PairwiseRun, TargetResult
from experiments.pairwise.rules import FINISHED, judgeable
from experiments.selectors import evalset_version_for

from ..models import ItemSource
from . import (
    REFERENCE_NAMES,
    SMALL_STRING_BYTES,
    SourceItem,
    result_items,
    snapshot_capped,
    trace_items,
)

MAX_ROWS = 1000  # items one call adds (also "all" of an evalset version)


def items_from_body(*, workspace: Workspace, body: dict) -> dict:
    """The items of an items body's one source (the API's and the add-items page's): {"items"}
    or {"errors"}. `all` stands for every row, pair or shared row of its source."""
    every = bool(body.get("all"))
    if body.get("results"):
        return result_items(
            workspace=workspace, experiment_id=body["experiment"], result_ids=body["results"]
        )
    if body.get("evalset_version"):
        rows = None if every else body["rows"]
        return evalset_row_items(
            workspace=workspace, version_id=body["evalset_version"], row_ids=rows
        )
    if body.get("pairwise_run"):
        pairs = None if every else body["pairs"]
        return pairwise_result_items(
            workspace=workspace, run_id=body["pairwise_run"], pair_ids=pairs
        )
    if body.get("experiments"):
        rows = None if every else body["rows"]
        return experiment_pair_items(
            workspace=workspace, experiment_ids=body["experiments"], row_ids=rows
        )
    return trace_items(workspace=workspace, trace_ids=body["traces"])


def evalset_row_items(*, workspace: Workspace, version_id, row_ids: list[str] | None) -> dict:
    """The items for rows of the workspace's evalset version (`row_ids`: item ids; None: all
    of them, at most MAX_ROWS)."""
    version = evalset_version_for(workspace=workspace, public_id=version_id)
    if version is None or version.status != VersionStatus.READY:
        return {"errors": {"evalset_version": [_("No such evalset version in this workspace.")]}}
    if row_ids is None and version.item_count > MAX_ROWS:
        message = _("This version has %(n)s rows: select at most %(max)s.")
        return {"errors": {"all": [message % {"n": version.item_count, "max": MAX_ROWS}]}}
    rows = EvalSetItem.objects.filter(version=version).order_by("position", "pk")
    found = _rows_by_id(rows, row_ids)
    if "errors" in found:
        return found
    return {"items": [_row_item(row) for row in found["rows"]]}


def _rows_by_id(rows, row_ids: list[str] | None, field: str = "rows") -> dict:
    """{"rows": the rows named (all when None), in the order named} or {"errors"}."""
    if row_ids is None:
        return {"rows": list(rows[:MAX_ROWS])}
    wanted = [as_uuid(ref) for ref in row_ids]
    known = {row.item_id: row for row in rows.filter(item_id__in=[u for u in wanted if u])}
    errors = unknown_named(field, wanted, known, _("No such row in this version."))
    return {"errors": errors} if errors else {"rows": [known[u] for u in dict.fromkeys(wanted)]}


def _row_part(data: dict) -> dict:
    """A row's snapshot: its fields (Text as its text) split into input and reference."""
    fields = {name: _plain(value) for name, value in (data or {}).items()}
    reference = {k: v for k, v in fields.items() if k.startswith(REFERENCE_NAMES)}
    return {
        "input": {k: v for k, v in fields.items() if k not in reference},
        "reference": reference,
    }


def _plain(value):
    """A Text content as its text; anything else (a chat, an image) as it is."""
    if isinstance(value, dict) and value.get("content_type") == "Text":
        return value.get("text")
    return value


def _row_item(row: EvalSetItem) -> SourceItem:
    snapshot = {**_row_part(row.data), "row_number": row.position + 1}
    judge = [{"human_verdict": row.human_verdict}] if row.human_verdict else []
    return SourceItem(ItemSource.EVALSET_ROW, str(row.pk), snapshot_capped(snapshot), judge)


# ----------------------------------------------------------------------------- pairs


def pairwise_result_items(*, workspace: Workspace, run_id, pair_ids: list[int] | None) -> dict:
    """The items for judged pairs of the workspace's pairwise run (its results' ids; None:
    its first repetition's, at most MAX_ROWS, in row order), with the judge's outcome (A, B
    or tie in the pair's frame)."""
    run = by_public_id(PairwiseRun.objects.filter(workspace=workspace), run_id)
    if run is None:
        return {"errors": {"pairwise_run": [_("No such pairwise run in this workspace.")]}}
    if pair_ids is None:
        first = run.results.filter(repeat=0).order_by("position", "experiment_a", "experiment_b")
        pair_ids = list(first.values_list("pk", flat=True)[:MAX_ROWS])
    pairs = PairwiseResult.objects.filter(run=run, pk__in=pair_ids).select_related(
        "item", "experiment_a", "experiment_b", "run__evaluator_version__evaluator"
    )
    found = {pair.pk: pair for pair in pairs}
    errors = unknown_named("pairs", pair_ids, found, _("No such pair in this pairwise run."))
    if errors:
        return {"errors": errors}
    return {"items": [_pair_result_item(found[pk]) for pk in dict.fromkeys(pair_ids)]}


def _pair_result_item(pair: PairwiseResult) -> SourceItem:
    snapshot = _pair_snapshot(
        pair.item, (pair.experiment_a, pair.output_a), (pair.experiment_b, pair.output_b)
    )
    version = pair.run.evaluator_version
    judge = {
        "evaluator": version.evaluator.name,
        "version": version.version,
        "outcome": pair.outcome,
        "position_inconsistent": pair.position_inconsistent,
        "reason": cap_text(pair.reason_ab or pair.error, SMALL_STRING_BYTES),
    }
    return SourceItem(ItemSource.PAIRWISE_RESULT, str(pair.pk), snapshot, [judge])


def _pair_snapshot(row: EvalSetItem, a: tuple, b: tuple) -> dict:
    """What reviewers compare: the row, and each side's experiment and output (None: none)."""
    (experiment_a, output_a), (experiment_b, output_b) = a, b
    sides = {
        side: {"experiment": str(e.public_id), "name": e.name}
        for side, e in (("A", experiment_a), ("B", experiment_b))
    }
    snapshot = {**_row_part(row.data), "row_number": row.position + 1, "sides": sides}
    return snapshot_capped({**snapshot, "output_a": output_a, "output_b": output_b})


def experiment_pair_items(
    *, workspace: Workspace, experiment_ids: list, row_ids: list[str] | None
) -> dict:
    """The items comparing two finished experiments of the workspace (A, then B) on the same
    evalset, on rows both ran (`row_ids`: item ids, as compare pairs rows; None: every row
    both ran, at most MAX_ROWS), with each one's first output."""
    found = _two_experiments(workspace, experiment_ids)
    if "errors" in found:
        return found
    a, b = found["experiments"]
    rows_a = EvalSetItem.objects.filter(version_id=a.evalset_version_id).order_by("position")
    if row_ids is None:  # the rows B ran too
        ran = TargetResult.objects.filter(experiment=b, repeat=0).values("item__item_id")
        rows_a = rows_a.filter(item_id__in=ran)
    rows = _rows_by_id(rows_a, row_ids)
    if "errors" in rows:
        return rows
    uids = [row.item_id for row in rows["rows"]]
    outputs = {e.pk: _outputs(e, uids) for e in (a, b)}
    missing = unknown_named(
        "rows", uids, outputs[b.pk], _("The second experiment did not run this row.")
    )
    if missing:
        return {"errors": missing}
    return {"items": [_experiment_pair_item(a, b, row, outputs) for row in rows["rows"]]}


def _two_experiments(workspace: Workspace, refs: list) -> dict:
    """{"experiments": [A, B]}: two different finished experiments with outputs, of one
    evalset; or {"errors"} naming each that is not."""
    mine = Experiment.objects.filter(workspace=workspace).select_related("evalset_version")
    found = [by_public_id(mine, ref) for ref in refs]
    errors = {
        f"experiments[{i}]": [_("No finished experiment of this workspace with outputs.")]
        for i, e in enumerate(found)
        if e is None or not judgeable(e)
    }
    if not errors and found[0].pk == found[1].pk:
        errors["experiments[1]"] = [_("Compare two different experiments.")]
    elif not errors and found[0].evalset_version.evalset_id != found[1].evalset_version.evalset_id:
        errors["experiments[1]"] = [_("Both experiments must run on the same evalset.")]
    return {"errors": errors} if errors else {"experiments": found}


def _outputs(experiment: Experiment, uids: list) -> dict:
    """item id → the experiment's first output on it (None: it has none), for rows it ran."""
    found = TargetResult.objects.filter(
        experiment=experiment, repeat=0, item__item_id__in=uids
    ).values_list("item__item_id", "status", "output")
    return {
        uid: (output if status == ResultStatus.SUCCESS else None) for uid, status, output in found
    }


def _experiment_pair_item(a: Experiment, b: Experiment, row: EvalSetItem, outputs) -> SourceItem:
    uid = row.item_id
    snapshot = _pair_snapshot(row, (a, outputs[a.pk].get(uid)), (b, outputs[b.pk][uid]))
    ref = f"{a.pk}:{b.pk}:{uid.hex}"
    return SourceItem(ItemSource.EXPERIMENT_PAIR, ref, snapshot, [])


# ----------------------------------------------------------------------------- the page's choices

MAX_CHOICES = 200


def source_choices(*, workspace: Workspace) -> dict[str, list[tuple[str, str]]]:
    """What the add-items page offers, newest first: ready versions of live evalsets, finished
    pairwise runs and finished experiments with outputs (id, name)."""
    versions = EvalSetVersion.objects.filter(
        evalset__workspace=workspace, evalset__deleted_at__isnull=True, status=VersionStatus.READY
    ).select_related("evalset")
    runs = PairwiseRun.objects.filter(workspace=workspace, status__in=FINISHED)
    experiments = Experiment.objects.filter(workspace=workspace, status__in=FINISHED)
    outputs = [e for e in experiments.order_by("-created_at")[:MAX_CHOICES] if judgeable(e)]
    named = [(str(e.public_id), e.name) for e in outputs]
    return {
        "evalset_version": [
            (str(v.public_id), f"{v.evalset.name} {v.version}")
            for v in versions.order_by("-created_at")[:MAX_CHOICES]
        ],
        "pairwise_run": [
            (str(r.public_id), r.name) for r in runs.order_by("-created_at")[:MAX_CHOICES]
        ],
        "experiment_a": named,
        "experiment_b": named,
    }
