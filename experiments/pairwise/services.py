"""Pairwise runs: create (and launch), cancel, retry the pairs that errored.

A run judges two or more finished experiments of one evalset — any versions of it: rows pair
by item id, as compare does — with a pairwise judge, every pair of experiments on every item
they share. Everything is checked before anything is written; the run, its experiments and
its chunks are then created and launched in one transaction, and the start task goes out once
that commits.
"""

from __future__ import annotations

from itertools import combinations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from assay.models import Workspace
from evalsets.models import EvalSetItem
from evaluators.kinds import kind_get
from evaluators.models import EvaluatorVersion
from evaluators.pairing import OUTPUT_A, OUTPUT_B, SLOTS

from ..mapping import mapping_problems, suggest_mapping, target_source
from ..models import ChunkStatus, Experiment, PairwiseChunk, PairwiseEntry, PairwiseRun
from ..runs.services import run_cancel, run_launched, run_retry_failed
from ..selectors.mappings import mapping_of_experiments
from ..services.run_numbers import run_numbers_problems
from ..stats.interval_settings import interval_settings
from .rules import FINISHED, MAX_EXPERIMENTS, MIN_EXPERIMENTS
from .work import PAIRWISE

MAX_REPETITIONS = 10


def pairwise_run_create(
    *,
    workspace: Workspace,
    user: AbstractBaseUser,
    name: str,
    experiments: list[Experiment | None],
    evaluator_version: EvaluatorVersion | None,
    description: str = "",
    mapping: dict | None = None,
    repetitions: int = 1,
    concurrency: int = 8,
    chunk_size: int = 100,
    interval: dict | None = None,
) -> PairwiseRun:
    """Check everything, then create the run (its experiments in the order given: the first
    is the baseline, A) with its chunks and launch it; nothing is saved when anything is wrong.

    `experiments` and `evaluator_version` are this workspace's objects (None where an id named
    nothing here, refused by its place); `mapping` sends the judge's other variables to
    `column:<name>` (when left out: as the experiments' own bindings map them, else by name or
    synonym).
    """
    errors: dict[str, list[str]] = {}
    name = (name or "").strip()
    if not name:
        errors["name"] = [_("A pairwise run needs a name.")]
    chosen = _experiments(workspace, experiments, errors)
    judge = _judge(workspace, evaluator_version, errors)
    mapping = _mapping(judge, chosen, mapping, errors) if judge and chosen else {}
    shared = _shared_items(chosen, errors) if chosen else {}
    errors |= run_numbers_problems(
        repetitions=repetitions,
        concurrency=concurrency,
        chunk_size=chunk_size,
        interval=interval,
        max_repetitions=MAX_REPETITIONS,
    )
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        run = PairwiseRun.objects.create(
            workspace=workspace,
            name=name[:160],
            description=(description or "").strip(),
            evalset=chosen[0].evalset_version.evalset,
            evaluator_version=judge,
            mapping=mapping,
            repetitions=repetitions,
            concurrency=concurrency,
            chunk_size=chunk_size,
            interval=interval_settings(workspace.interval_defaults, interval),
            created_by=user,
        )
        PairwiseEntry.objects.bulk_create(
            PairwiseEntry(run=run, experiment=e, position=i) for i, e in enumerate(chosen)
        )
        _launch(run, shared)
    run.refresh_from_db()
    return run


def _experiments(workspace, experiments, errors: dict) -> list[Experiment]:
    """The experiments to judge, every problem named by its place; [] when any is wrong."""
    if not isinstance(experiments, list | tuple) or len(experiments) < MIN_EXPERIMENTS:
        errors["experiments"] = [_("Choose at least two experiments to judge against each other.")]
        return []
    if len(experiments) > MAX_EXPERIMENTS:
        errors["experiments"] = [
            _("At most %(n)s experiments per pairwise run.") % {"n": MAX_EXPERIMENTS}
        ]
        return []
    found = [_experiment_problem(workspace, e, experiments[:i]) for i, e in enumerate(experiments)]
    for i, problem in enumerate(found):
        if problem:
            errors[f"experiments[{i}]"] = [problem]
    if any(found):
        return []
    return _same_evalset(list(experiments), errors)


def _experiment_problem(workspace, experiment, earlier) -> str:
    if not isinstance(experiment, Experiment) or experiment.workspace_id != workspace.pk:
        return _("No such experiment in this workspace.")
    if any(isinstance(e, Experiment) and e.pk == experiment.pk for e in earlier):
        return _("%(name)r is already in the run.") % {"name": experiment.name}
    if experiment.status not in FINISHED:
        return _("%(name)r is %(status)s: judge it once it has finished.") % {
            "name": experiment.name,
            "status": experiment.get_status_display(),
        }
    if not experiment.target_spec.produces_output:
        return _(
            "%(name)r has no target outputs to judge (it scored the evalset's own columns)."
        ) % {"name": experiment.name}
    return ""


def _same_evalset(experiments: list[Experiment], errors: dict) -> list[Experiment]:
    first = experiments[0].evalset_version.evalset
    for i, experiment in enumerate(experiments[1:], start=1):
        evalset = experiment.evalset_version.evalset
        if evalset.pk != first.pk:
            errors[f"experiments[{i}]"] = [
                _(
                    "%(name)r runs on %(evalset)r, not %(first)r: the experiments of a pairwise "
                    "run share one evalset (any versions of it)."
                )
                % {"name": experiment.name, "evalset": evalset.name, "first": first.name}
            ]
    return [] if errors else experiments


def _judge(workspace, version, errors: dict) -> EvaluatorVersion | None:
    if not isinstance(version, EvaluatorVersion) or version.evaluator.workspace_id != workspace.pk:
        errors["evaluator_version"] = [_("No such evaluator version in this workspace.")]
        return None
    kind = kind_get(version.kind)
    if not kind.pairwise:
        errors["evaluator_version"] = [
            _(
                "%(version)s is a %(kind)s, not a pairwise judge: choose one that compares two "
                "outputs."
            )
            % {"version": version, "kind": kind.label}
        ]
        return None
    return version


def _mapping(judge, experiments, given, errors: dict) -> dict:
    """The judge's variables: both outputs, and the rest from the columns of each pair's A row
    (unless given: as the experiments' own bindings map them, else by name or synonym),
    checked against every version that can be an A."""
    variables = judge.config.get("input_variables") or []
    mapping = dict(given) if isinstance(given, dict) else _suggested(variables, experiments)
    mapping |= {OUTPUT_A: target_source(OUTPUT_A), OUTPUT_B: target_source(OUTPUT_B)}
    problems: list[str] = []
    for experiment in experiments[:-1]:  # the last experiment is never a pair's A
        found = mapping_problems(
            variables=variables,
            mapping=mapping,
            columns=experiment.evalset_version.columns,
            target_outputs=SLOTS,
        )
        problems += [p for p in found if p not in problems]
    if problems:
        errors["mapping"] = problems
    return mapping


def _suggested(variables: list[dict], experiments: list[Experiment]) -> dict:
    """What the experiments' own mappings say (`input ← column:question`), else a column of
    the variable's name or a synonym of it, for the judge's variables other than the outputs."""
    others = [v for v in variables if v["name"] not in SLOTS]
    return suggest_mapping(
        variables=others,
        columns=experiments[0].evalset_version.columns,
        remembered=mapping_of_experiments(experiments=experiments),
    )


def _shared_items(experiments: list[Experiment], errors: dict) -> dict:
    """(A, B) → the item ids both have, for every pair; an error when no pair shares any."""
    ids = {
        e.pk: set(
            EvalSetItem.objects.filter(version_id=e.evalset_version_id).values_list(
                "item_id", flat=True
            )
        )
        for e in experiments
    }
    shared = {(a.pk, b.pk): ids[a.pk] & ids[b.pk] for a, b in combinations(experiments, 2)}
    if not any(shared.values()):
        errors["experiments"] = [
            _("These experiments share no rows (by item id): nothing to judge.")
        ]
    return shared


def _launch(run: PairwiseRun, shared: dict) -> None:
    """Split the judged item ids into chunks, then draft → queued; start once committed."""
    judged = sorted(set().union(*shared.values()))
    bounds = judged[:: run.chunk_size]
    PairwiseChunk.objects.bulk_create(
        PairwiseChunk(
            run=run,
            index=i,
            uid_from=start,
            uid_to=bounds[i + 1] if i + 1 < len(bounds) else None,
            status=ChunkStatus.PENDING,
        )
        for i, start in enumerate(bounds)
    )
    run_launched(
        kind=PAIRWISE,
        run_id=run.pk,
        items_total=len(judged),
        results_total=sum(len(ids) for ids in shared.values()) * run.repetitions,
        chunks_total=len(bounds),
    )


def pairwise_run_cancel(*, run: PairwiseRun) -> PairwiseRun:
    """Stop a run (`runs.services.run_cancel`): running chunks drop their calls in flight and
    end it cancelled (never completed), with the statistics of the pairs judged so far."""
    return run_cancel(kind=PAIRWISE, run=run)


def pairwise_run_retry_failed(*, run: PairwiseRun) -> int:
    """Judge again the pairs that errored or timed out (and any never written), into the same
    run; returns how many. Pairs skipped for a missing output stay as they are."""
    return run_retry_failed(kind=PAIRWISE, run=run)
