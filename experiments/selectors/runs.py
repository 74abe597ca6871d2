"""Reads of experiments: the list, one run, its progress and counts, and the list's scores
and filters."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext

from assay.models import Workspace
from assay.selectors import as_uuid, by_public_id, public_or_404
from assay.vocabulary import ResultStatus, Verdict
from evalsets.models import EvalSet, EvalSetItem
from evaluators.models import Evaluator

from ..mapping import target_sources
from ..models import (
    ACTIVE_STATUSES,
    ChunkKind,
    ChunkStatus,
    EvaluatorBinding,
    Experiment,
    ExperimentStatus,
    Result,
)
from ..stats import COUNT_KEYS
from .resolving import _named_ref


def experiment_list(
    *, workspace: Workspace, status: str = "", evalset: str = "", evaluator: str = ""
) -> QuerySet:
    """Experiments of the workspace, newest first; `evalset` is an evalset or version public id,
    or a live evalset's "name" (any version) or "name@version".

    A status or id that cannot match anything is a ValidationError naming the filter.
    """
    qs = Experiment.objects.filter(workspace=workspace)
    if status:
        if status not in ExperimentStatus.values:
            raise ValidationError(
                {"status": gettext("Unknown status %(status)r.") % {"status": status}}
            )
        qs = qs.filter(status=status)
    if evalset:
        qs = qs.filter(_evalset_filter(workspace, evalset))
    if evaluator:
        uid = as_uuid(evaluator)
        if uid is None:
            raise ValidationError({"evaluator": gettext("Give an evaluator id.")})
        qs = qs.filter(bindings__evaluator_version__evaluator__public_id=uid).distinct()
    qs = qs.select_related("evalset_version__evalset", "created_by")
    return qs.annotate(binding_count=Count("bindings")).order_by("-created_at", "-pk")


def _evalset_filter(workspace: Workspace, ref: str) -> Q:
    named = _named_ref(ref)
    if named is None:
        uid = as_uuid(ref)
        return Q(evalset_version__public_id=uid) | Q(evalset_version__evalset__public_id=uid)
    name, version = named
    if not EvalSet.objects.filter(workspace=workspace, name=name, deleted_at__isnull=True).exists():
        raise ValidationError(
            {"evalset": gettext("No evaluation set is named %(name)r.") % {"name": name}}
        )
    live = Q(evalset_version__evalset__name=name, evalset_version__evalset__deleted_at__isnull=True)
    return live & Q(evalset_version__version=version) if version else live


def experiment_get(*, workspace: Workspace, public_id) -> Experiment:
    """One experiment of the workspace, or 404 (also for malformed ids and other workspaces)."""
    qs = Experiment.objects.filter(workspace=workspace).select_related(
        "evalset_version__evalset", "created_by", "cloned_from"
    )
    return public_or_404(qs, public_id, "experiment")


def experiment_find(*, workspace: Workspace, public_id) -> Experiment | None:
    """One experiment of the workspace by public id, or None."""
    return by_public_id(Experiment.objects.filter(workspace=workspace), public_id)


def baseline_latest(*, workspace: Workspace, candidate: Experiment) -> Experiment | None:
    """The newest completed run marked as a baseline on the candidate's evalset."""
    return (
        Experiment.objects.filter(
            workspace=workspace,
            is_baseline=True,
            status=ExperimentStatus.COMPLETED,
            evalset_version__evalset_id=candidate.evalset_version.evalset_id,
        )
        .exclude(pk=candidate.pk)
        .order_by("-finished_at", "-pk")
        .first()
    )


def any_active(experiments) -> bool:
    return any(e.status in ACTIVE_STATUSES for e in experiments)


# No target output and no result for this long: the ETA says "waiting" instead of a figure.
IDLE_S = 10.0


def experiment_progress(experiment: Experiment, now: datetime | None = None) -> dict:
    """Counters (target outputs, results), percent, elapsed time, throughput (results/s and
    rows/s), the calls in flight and the ETA.

    `results_done` counts the results written; `results_answered` adds the judge calls of the
    running chunks answered but not yet written (they land per mini-batch). The ETA
    extrapolates the rate at the last move (outputs and results together) and counts down from
    that moment, so it never grows while nothing lands; after IDLE_S without a move, or once
    overdue, it is None with `waiting` set. Before the first move there is nothing honest to
    extrapolate.
    """
    now = now or timezone.now()
    done, total = experiment.results_done, experiment.results_total
    calls = _running_calls(experiment)
    answered = min(total, done + calls["judge_answered"])
    targets_total = _targets_total(experiment)
    targets_done = min(experiment.targets_done, targets_total)
    elapsed = _elapsed(experiment, now)
    # no throughput for a run Assay did not execute (a garak import, pushed outputs)
    timed = elapsed if _executed_here(experiment) else None
    results_per_s = done / timed if timed and done else None
    bindings = max(1, total // experiment.items_total) if experiment.items_total else 1
    units = (answered + targets_done, total + targets_total)
    eta = _eta(experiment, now, *units)
    return {
        "results_done": done,
        "results_answered": answered,
        "results_total": total,
        "targets_done": targets_done,
        "targets_total": targets_total,
        "calls_in_flight": calls["target"],
        "judge_calls_in_flight": calls["judge"],
        "items_total": experiment.items_total,
        "chunks_done": experiment.chunks_done,
        "chunks_total": experiment.chunks_total,
        "percent": round(100 * experiment.progress, 1),
        "answered_percent": round(100 * answered / total, 1) if total else None,
        "overall_percent": _overall_percent(experiment, *units),
        "elapsed_s": round(elapsed, 3) if elapsed is not None else None,
        "results_per_s": round(results_per_s, 2) if results_per_s else None,
        "rows_per_s": round(results_per_s / bindings, 2) if results_per_s else None,
        # before any result: how fast the target answers (the throughput is not "—")
        "targets_per_s": round(targets_done / timed, 2) if timed and targets_done else None,
        "eta_s": eta,
        "waiting": experiment.is_active and eta is None and units[0] > 0,
        "idle_s": round(IDLE_S),
    }


def _targets_total(experiment: Experiment) -> int:
    """Target outputs the run needs: one per row and repetition, when it has a target."""
    if not experiment.target_spec.outputs_for(experiment.target_config):
        return 0
    return experiment.items_total * experiment.repetitions


def _running_calls(experiment: Experiment) -> dict[str, int]:
    """What the running chunks report each second: the target's calls in flight, and the
    judge calls in flight and answered since their chunk's last commit."""
    found = {"target": 0, "judge": 0, "judge_answered": 0}
    if not experiment.is_active:
        return found
    running = experiment.chunks.filter(
        status=ChunkStatus.RUNNING, kind__in=[ChunkKind.TARGET, ChunkKind.LLM]
    )
    sums = (
        running.order_by()
        .values_list("kind")
        .annotate(Sum("calls_in_flight"), Sum("calls_answered"))
    )
    for kind, flight, answered in sums:
        if kind == ChunkKind.TARGET:
            found["target"] = flight or 0
        else:
            found["judge"], found["judge_answered"] = flight or 0, answered or 0
    return found


def _overall_percent(experiment: Experiment, done: int, total: int) -> float:
    """Outputs and results together: the bar moves while the target answers."""
    if not total:
        return round(100 * experiment.progress, 1)
    return round(100 * min(1.0, done / total), 1)


def _eta(experiment: Experiment, now: datetime, done: int, total: int) -> int | None:
    """Seconds left at the rate measured up to the last move, counted down since then."""
    moved, started = experiment.progressed_at, experiment.started_at
    if not (experiment.is_active and done and moved and started) or total <= done:
        return None
    busy = (moved - started).total_seconds()
    idle = (now - moved).total_seconds()
    if busy <= 0 or idle > IDLE_S:
        return None
    left = (total - done) * busy / done - idle
    return math.ceil(left) if left > 0 else None


def _executed_here(experiment: Experiment) -> bool:
    """Whether Assay computed this run's rows itself: a garak import's scores are garak's and
    an external target's outputs are pushed by a client, so their rows per second would measure
    an upload, not a run (no throughput for them)."""
    spec = experiment.target_spec
    return spec.runs_on_workers and not (experiment.interval or {}).get("exact_garak")


def experiment_refs(*, experiment: Experiment) -> dict:
    """The run's set and evaluator versions as the client names them (NAME@VERSION), and its
    first row's item id (an example for a push)."""
    version = experiment.evalset_version
    bindings = experiment.bindings.select_related("evaluator_version__evaluator").order_by("pk")
    items = EvalSetItem.objects.of_version(version).order_by("position")
    first = items.values_list("item_id", flat=True).first()
    return {
        "evalset": f"{version.evalset.name}@{version.version}",
        "evaluators": [
            f"{b.evaluator_version.evaluator.name}@{b.evaluator_version.version}" for b in bindings
        ],
        "first_item": str(first or "<item id>"),
    }


def _elapsed(experiment: Experiment, now: datetime) -> float | None:
    if experiment.started_at is None:
        return None
    end = experiment.finished_at or now
    return max(0.0, (end - experiment.started_at).total_seconds())


def result_counts(*, experiment: Experiment) -> dict:
    """Results by status and by final verdict (a human correction wins)."""
    statuses = {s: 0 for s in ResultStatus.values}
    verdicts = {v: 0 for v in Verdict.values}
    if not experiment.is_active and _aggregated(experiment):
        return _counts_from_aggregates(experiment, statuses, verdicts)
    rows = (
        Result.objects.filter(experiment=experiment)
        .values_list("status", "verdict", "human_verdict")
        .annotate(n=Count("pk"))
        .order_by()
    )
    for status, verdict, human, n in rows:
        statuses[status] = statuses.get(status, 0) + n
        final = human or verdict
        verdicts[final] = verdicts.get(final, 0) + n
    return {"statuses": statuses, "verdicts": verdicts}


def _aggregated(experiment: Experiment) -> bool:
    """Finished runs have one stored aggregate per binding: read those, not every result."""
    return experiment.aggregates.count() == experiment.bindings.count() > 0


def _counts_from_aggregates(experiment: Experiment, statuses: dict, verdicts: dict) -> dict:
    for summary in experiment.aggregates.values_list("summary", flat=True):
        for status, n in (summary.get("statuses") or {}).items():
            statuses[status] = statuses.get(status, 0) + n
        for verdict, key in COUNT_KEYS.items():
            verdicts[verdict] += summary[key]
    return {"statuses": statuses, "verdicts": verdicts}


def target_failed_count(*, experiment: Experiment, exact: bool = False) -> int:
    """Rows (and repetitions) whose target call failed, which a retry calls again; a finished
    run reads its target summary unless `exact`. 0 for a target a retry does not call."""
    spec = experiment.target_spec
    if not (spec.produces_output and spec.runs_on_workers and spec.recalls_failed):
        return 0
    statuses = (experiment.target_summary or {}).get("statuses")
    if not exact and not experiment.is_active and statuses is not None:
        return sum(n for status, n in statuses.items() if status != ResultStatus.SUCCESS)
    return experiment.target_results.exclude(status=ResultStatus.SUCCESS).count()


@dataclass(frozen=True)
class RetryCounts:
    """What "Retry failed rows" runs again: rows whose target failed (called again, then
    scored: `rescored` results) and rows whose evaluator failed or never wrote a result."""

    target_rows: int
    evaluator_rows: int  # unwritten ones included
    rescored: int = 0
    unwritten: int = 0

    @property
    def total(self) -> int:
        return self.target_rows + self.evaluator_rows


def retry_counts(*, experiment: Experiment) -> RetryCounts:
    """The exact counts of a retry (the service's; pages use the cheaper stored ones)."""
    failed = experiment.results.filter(status__in=[ResultStatus.ERROR, ResultStatus.TIMEOUT])
    # a row scored per assistant turn counts once however many of its turns failed
    evaluator = failed.values_list("binding_id", "item_id", "repeat").distinct().count()
    missing = max(experiment.results_total - experiment.results.filter(turn=0).count(), 0)
    target = target_failed_count(experiment=experiment, exact=True)
    rescored = _rescored(experiment) if target else 0
    return RetryCounts(target, evaluator + missing, rescored, missing)


def _rescored(experiment: Experiment) -> int:
    """Results of bindings fed by the target on rows whose target failed."""
    fed = [b.pk for b in experiment.bindings.all() if target_sources(b.mapping)]
    failed = experiment.target_results.filter(
        item=OuterRef("item"), repeat=OuterRef("repeat")
    ).exclude(status=ResultStatus.SUCCESS)
    return experiment.results.filter(turn=0, binding_id__in=fed).filter(Exists(failed)).count()


def failed_count(*, experiment: Experiment) -> int:
    """Rows a retry would re-run (error or timeout); a finished run reads its aggregates."""
    retryable = [ResultStatus.ERROR, ResultStatus.TIMEOUT]
    if not experiment.is_active and _aggregated(experiment):
        statuses = result_counts(experiment=experiment)["statuses"]
        return sum(statuses.get(s, 0) for s in retryable)
    return experiment.results.filter(status__in=retryable).count()


def bindings_with_summaries(*, experiment: Experiment) -> list[EvaluatorBinding]:
    """Bindings in order, each with `summary` (the stored aggregate, or None yet)."""
    bindings = list(experiment.bindings.select_related("evaluator_version__evaluator", "aggregate"))
    for binding in bindings:
        aggregate = getattr(binding, "aggregate", None)
        binding.summary = aggregate.summary if aggregate is not None else None
    return bindings


def experiment_list_scores(*, experiments) -> dict[int, list[dict]]:
    """experiment pk → each evaluator's pass rate and interval, for the list (one query)."""
    from ..models import Aggregate
    from ..stats.interval_settings import pass_interval

    scores: dict[int, list[dict]] = {}
    found = Aggregate.objects.filter(experiment__in=list(experiments)).select_related(
        "binding__evaluator_version__evaluator"
    )
    for aggregate in found.order_by("binding__position"):
        fail_ci = aggregate.summary.get("fail_rate_ci")
        scores.setdefault(aggregate.experiment_id, []).append(
            {
                "name": aggregate.binding.evaluator_version.evaluator.name,
                "pass_rate": aggregate.summary.get("pass_rate"),
                "pass_ci": pass_interval(fail_ci),
            }
        )
    return scores


def experiment_filter_choices(*, workspace: Workspace) -> dict:
    """The list page's filter choices: live evalsets, and evaluators bound in some run."""
    evalsets = EvalSet.objects.filter(workspace=workspace, deleted_at__isnull=True)
    evaluators = Evaluator.objects.filter(
        workspace=workspace, versions__bindings__isnull=False
    ).distinct()
    return {
        "evalsets": list(evalsets.order_by("name").values_list("public_id", "name")),
        "evaluators": list(evaluators.order_by("name").values_list("public_id", "name")),
    }
