"""Reads of pairwise runs and their pairs, always scoped to one workspace."""

from __future__ import annotations

from collections import Counter, defaultdict

from django.core.exceptions import ValidationError
from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.selectors import as_uuid, by_public_id, public_or_404
from assay.vocabulary import PairOutcome, ResultStatus
from evaluators.kinds import KINDS

from ..models import Experiment, ExperimentStatus, PairwiseResult, PairwiseRun
from ..selectors import evaluator_version_choices, evaluator_version_for
from .rules import FINISHED, judgeable

RESULT_FILTERS = ("outcome", "inconsistent", "pair", "status", "q")


def pairwise_run_list(*, workspace: Workspace, status: str = "") -> QuerySet:
    """The workspace's pairwise runs, newest first (400 naming `status` when it is unknown)."""
    runs = PairwiseRun.objects.filter(workspace=workspace)
    if status:
        if status not in ExperimentStatus.values:
            raise ValidationError({"status": _("Unknown status %(status)r.") % {"status": status}})
        runs = runs.filter(status=status)
    runs = runs.select_related("evalset", "evaluator_version__evaluator", "created_by")
    return runs.annotate(experiment_count=Count("entries")).order_by("-created_at", "-pk")


def pairwise_run_get(*, workspace: Workspace, public_id) -> PairwiseRun:
    """One pairwise run of the workspace, or 404 (also for malformed ids and other workspaces)."""
    runs = PairwiseRun.objects.filter(workspace=workspace).select_related(
        "evalset", "evaluator_version__evaluator", "created_by"
    )
    return public_or_404(runs, public_id, "pairwise run")


def run_experiments(*, run: PairwiseRun) -> list[Experiment]:
    """The run's experiments in its order (the first is the baseline, A)."""
    entries = run.entries.select_related("experiment__evalset_version").order_by("position")
    return [entry.experiment for entry in entries]


# ----------------------------------------------------------------------------- the new-run form


def pairwise_inputs(*, workspace: Workspace, experiments, evaluator_version) -> dict:
    """Ids from a form or a body as objects of this workspace; an id that names nothing here is
    None, for the service to refuse by its place (`experiments[1]`)."""
    mine = Experiment.objects.filter(workspace=workspace).select_related("evalset_version")
    listed = experiments if isinstance(experiments, list | tuple) else [experiments]
    return {
        "experiments": [by_public_id(mine, ref) for ref in listed],
        "evaluator_version": evaluator_version_for(
            workspace=workspace, public_id=evaluator_version
        ),
    }


def pairwise_candidates(*, workspace: Workspace) -> list[dict]:
    """The experiments a pairwise run can judge — finished, with target outputs — grouped by
    evalset (only runs on one evalset can be paired), each group newest first."""
    finished = (
        Experiment.objects.filter(workspace=workspace, status__in=FINISHED)
        .select_related("evalset_version__evalset")
        .order_by("-created_at", "-pk")
    )
    groups: dict[int, dict] = {}
    for experiment in finished:
        if not judgeable(experiment):
            continue
        evalset = experiment.evalset_version.evalset
        group = groups.setdefault(evalset.pk, {"evalset": evalset, "experiments": []})
        group["experiments"].append(experiment)
    return [g for g in groups.values() if len(g["experiments"]) >= 2]


def pairwise_judge_choices(*, workspace: Workspace) -> list:
    """Submitted versions of the workspace's pairwise judges, by name, highest first."""
    pairwise = [name for name, kind in KINDS.items() if kind.pairwise]
    choices = evaluator_version_choices(workspace=workspace)
    return [version for version in choices if version.kind in pairwise]


# ----------------------------------------------------------------------------- the pairs


def pairwise_results_list(
    *,
    run: PairwiseRun,
    outcome: str = "",
    inconsistent: str = "",
    pair: str = "",
    status: str = "",
    q: str = "",
) -> QuerySet:
    """The run's judged pairs in row order, filtered; a filter that cannot match is a
    ValidationError naming it. `pair` is "<A's id>:<B's id>" (experiment public ids)."""
    rows = PairwiseResult.objects.filter(run=run)
    errors: dict[str, list[str]] = {}
    rows = _choice(rows, "outcome", outcome, PairOutcome.values, errors)
    rows = _choice(rows, "status", status, ResultStatus.values, errors)
    if inconsistent not in ("", "true", "false", "1", "0"):
        errors["inconsistent"] = [_("Use true or false.")]
    elif inconsistent:
        rows = rows.filter(position_inconsistent=inconsistent in ("true", "1"))
    if pair:
        rows = _by_pair(rows, run, pair, errors)
    if q:
        rows = rows.filter(
            Q(reason_ab__icontains=q) | Q(reason_ba__icontains=q) | Q(error__icontains=q)
        )
    if errors:
        raise ValidationError(errors)
    return rows.select_related("experiment_a", "experiment_b").order_by(
        "position", "experiment_a_id", "experiment_b_id", "repeat", "pk"
    )


def _choice(rows, name: str, value: str, allowed, errors: dict):
    if not value:
        return rows
    if value not in allowed:
        unknown = {
            "outcome": _("Unknown outcome %(value)r; use %(allowed)s."),
            "status": _("Unknown status %(value)r; use %(allowed)s."),
        }
        errors[name] = [unknown[name] % {"value": value, "allowed": ", ".join(allowed)}]
        return rows
    return rows.filter(**{name: value})


def _by_pair(rows, run: PairwiseRun, value: str, errors: dict):
    a, _sep, b = value.partition(":")
    ids = {str(e.public_id): e.pk for e in run_experiments(run=run)}
    uid_a, uid_b = as_uuid(a), as_uuid(b)
    if uid_a is None or uid_b is None or str(uid_a) not in ids or str(uid_b) not in ids:
        errors["pair"] = [_("Give two experiments of this run as <A's id>:<B's id>.")]
        return rows
    return rows.filter(experiment_a_id=ids[str(uid_a)], experiment_b_id=ids[str(uid_b)])


def pairwise_result_get(*, run: PairwiseRun, result_id: int) -> PairwiseResult:
    """One pair of the run by its id, or 404 (an id of another run is not this run's)."""
    found = (
        PairwiseResult.objects.filter(run=run, pk=result_id)
        .select_related("experiment_a", "experiment_b")
        .first()
    )
    if found is None:
        raise Http404(_("No such pair"))
    return found


def pairwise_live_counts(*, run: PairwiseRun) -> dict[tuple[int, int], Counter]:
    """Per pair (A's pk, B's pk): its outcomes counted, and how many were position-inconsistent
    — what the page shows while the run goes on (the statistics come when it finishes)."""
    rows = (
        PairwiseResult.objects.filter(run=run)
        .values("experiment_a_id", "experiment_b_id", "outcome", "position_inconsistent")
        .annotate(n=Count("id"))
    )
    counts: dict[tuple[int, int], Counter] = defaultdict(Counter)
    for row in rows:
        key = (row["experiment_a_id"], row["experiment_b_id"])
        counts[key][row["outcome"]] += row["n"]
        counts[key]["inconsistent"] += row["n"] if row["position_inconsistent"] else 0
    return counts
