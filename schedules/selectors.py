"""Reads of templates, schedules and their runs, scoped to a workspace; what "latest" means
for an evalset version and an evaluator version at a launch."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.utils.translation import gettext

from assay.models import Workspace
from assay.selectors import by_public_id, public_or_404
from assay.semver import sort_key
from evalsets.models import EvalSet, EvalSetVersion, VersionStatus
from evaluators.models import Evaluator, EvaluatorVersion
from experiments.models import Experiment, ExperimentStatus
from experiments.results.gate import evaluator_reasons
from experiments.selectors.resolving import evalset_version_for, evaluator_version_for

from .models import Comparison, ExperimentTemplate, Schedule, ScheduleRun

RUNS_SHOWN = 50


def template_list(*, workspace: Workspace) -> QuerySet[ExperimentTemplate]:
    """The workspace's templates by name, with their set."""
    return ExperimentTemplate.objects.filter(workspace=workspace).select_related(
        "evalset", "evalset_version", "baseline"
    )


def template_get(*, workspace: Workspace, public_id) -> ExperimentTemplate:
    """One template of the workspace, or 404 (also for another workspace's id)."""
    return public_or_404(template_list(workspace=workspace), public_id, "template")


def template_by_name_or_id(*, workspace: Workspace, ref: str) -> ExperimentTemplate:
    """A template by public id or by its name (what `assay run --template` sends), or 404."""
    named = template_list(workspace=workspace).filter(name=ref).first()
    return named or template_get(workspace=workspace, public_id=ref)


def schedule_get(*, template: ExperimentTemplate, public_id) -> Schedule:
    """One schedule of the template, or 404."""
    return public_or_404(template.schedules.all(), public_id, "schedule")


def template_runs(*, template: ExperimentTemplate, limit: int = RUNS_SHOWN) -> list[ScheduleRun]:
    """The template's newest launches and skips, with their runs and baselines; each with
    `reasons`, why the gate could not decide, in the active language."""
    runs = list(template.runs.select_related("experiment", "compared_with", "schedule")[:limit])
    for run in runs:
        run.reasons = undecided_reasons(run=run)
    return runs


def undecided_reasons(*, run: ScheduleRun) -> list[str]:
    """Why the gate could not decide a run, worded now from the numbers it stored (the
    stored sentence when it kept none)."""
    if run.comparison != Comparison.UNDECIDED:
        return []
    worded = [
        f"{d['evaluator']}: {reason}"
        for d in run.comparison_detail
        if isinstance(d, dict) and "gate" in d
        for reason in evaluator_reasons(d["gate"])
    ]
    return worded or [run.comparison_text]


def evalset_latest_committed(*, evalset: EvalSet) -> EvalSetVersion | None:
    """The set's highest committed (ready) version, by SemVer."""
    ready = list(EvalSetVersion.objects.filter(evalset=evalset, status=VersionStatus.READY))
    return max(ready, key=lambda v: sort_key(v.version)) if ready else None


def evaluator_latest(*, evaluator: Evaluator) -> EvaluatorVersion | None:
    """The evaluator's highest version, by SemVer (none for a deleted evaluator)."""
    return None if evaluator.is_deleted else evaluator.latest_version


def unfinished_run(*, template: ExperimentTemplate) -> Experiment | None:
    """A run launched from the template that has not finished (a new one would overlap it)."""
    busy = (ExperimentStatus.DRAFT, ExperimentStatus.QUEUED, ExperimentStatus.RUNNING)
    found = template.runs.filter(experiment__status__in=busy).select_related("experiment")
    run = found.first()
    return run.experiment if run else None


def previous_completed(*, run: ScheduleRun) -> Experiment | None:
    """The template's newest completed run launched before this one."""
    earlier = ScheduleRun.objects.filter(
        template_id=run.template_id,
        pk__lt=run.pk,
        experiment__status=ExperimentStatus.COMPLETED,
    ).select_related("experiment")
    found = earlier.order_by("-pk").first()
    return found.experiment if found else None


def runs_to_compare(*, limit: int = 50) -> list[ScheduleRun]:
    """Launched runs still waiting for their comparison whose experiment has finished."""
    finished = (ExperimentStatus.COMPLETED, ExperimentStatus.FAILED, ExperimentStatus.CANCELLED)
    pending = ScheduleRun.objects.filter(comparison="pending", experiment__status__in=finished)
    return list(pending.select_related("experiment", "template__baseline")[:limit])


def schedules_due(*, now) -> list[Schedule]:
    """Active schedules whose next time has come."""
    due = Schedule.objects.filter(paused=False, next_run_at__lte=now)
    return list(due.select_related("template", "created_by").order_by("next_run_at"))


def experiment_ref(*, workspace: Workspace, ref) -> Experiment | None:
    """An experiment of the workspace by public id, or None."""
    return by_public_id(Experiment.objects.filter(workspace=workspace), ref)


def versions_resolved(*, workspace: Workspace, data: dict) -> dict:
    """A template body's public ids → this workspace's objects (None where one does not
    resolve: the service names it by its field)."""
    resolved = dict(data)
    if "evalset_version" in data:
        resolved["evalset_version"] = evalset_version_for(
            workspace=workspace, public_id=data["evalset_version"]
        )
    if "bindings" in data:
        resolved["bindings"] = [
            {**b, "evaluator_version": _version_or_none(workspace, b.get("evaluator_version"))}
            for b in data["bindings"]
        ]
    if "baseline" in data and not data["baseline"]:
        resolved["baseline"] = None  # "" or null: compare with the previous run
    elif data.get("baseline"):
        resolved["baseline"] = experiment_ref(workspace=workspace, ref=data["baseline"])
        if resolved["baseline"] is None:
            raise ValidationError({"baseline": [gettext("No such experiment in this workspace.")]})
    return resolved


def _version_or_none(workspace: Workspace, ref) -> EvaluatorVersion | None:
    return evaluator_version_for(workspace=workspace, public_id=ref) if ref else None


def baseline_choices(*, template: ExperimentTemplate, limit: int = 50) -> list[Experiment]:
    """Completed runs on the template's evalset, newest first: what may be its baseline."""
    runs = Experiment.objects.filter(
        workspace_id=template.workspace_id,
        evalset_version__evalset_id=template.evalset_id,
        status=ExperimentStatus.COMPLETED,
    )
    return list(runs.order_by("-finished_at", "-pk")[:limit])
