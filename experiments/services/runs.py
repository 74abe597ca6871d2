"""Business logic for experiments: create, launch, cancel, retry failed rows, clone, correct."""

from __future__ import annotations

import math

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.vocabulary import Verdict
from evalsets.committing import pin_problem
from evalsets.models import EvalSetItem, EvalSetVersion
from evaluators.kinds import kind_get
from evaluators.models import EvaluatorVersion
from evaluators.policies import validate_policy

from ..mapping import applies, applies_to_problems, mapping_problems, suggest_mapping
from ..models import (
    ChunkKind,
    ChunkStatus,
    EvaluatorBinding,
    Experiment,
    ExperimentChunk,
    ExperimentStatus,
    Result,
)
from ..runs.services import run_cancel, run_launched, run_retry_failed
from ..scoring.kind import EXPERIMENT
from ..selectors.runs import RetryCounts
from ..stats.interval_settings import interval_problems, interval_settings
from ..targets import target_get
from .per_turn import TURN_KEYS, binding_turn_options
from .run_numbers import run_numbers_problems

MAX_BINDINGS = 20
MAX_REPETITIONS = 20
FIRST_STATUS = {ChunkKind.CODE: ChunkStatus.WAITING, ChunkKind.LLM: ChunkStatus.WAITING}


def experiment_create(
    *,
    workspace: Workspace,
    user: AbstractBaseUser,
    name: str,
    evalset_version: EvalSetVersion,
    bindings: list[dict],
    description: str = "",
    probe_name: str = "",
    target: dict | None = None,
    concurrency: int = 8,
    chunk_size: int = 1000,
    repetitions: int = 1,
    interval: dict | None = None,
    launch: bool = False,
) -> Experiment:
    """Create a draft experiment, and with `launch` launch it in the same transaction (a launch
    that fails leaves no draft behind); every binding and the target are validated first.

    A binding is {"evaluator_version": EvaluatorVersion, "mapping": {...} | None,
    "policy": {...} | None, "ext": {...}}; a missing mapping is suggested by name.
    """
    errors: dict[str, list[str]] = {}
    name = (name or "").strip()
    if not name:
        errors["name"] = [_("An experiment needs a name.")]
    if evalset_version.evalset.workspace_id != workspace.pk:
        errors["evalset_version"] = [_("No such evalset version in this workspace.")]
    elif problem := pin_problem(evalset_version):
        errors["evalset_version"] = [problem]
    target_kind, target_config = target_validated(workspace, target, evalset_version, errors)
    spec = target_get(target_kind)
    outputs = spec.outputs_for(target_config)
    cleaned = _clean_bindings(workspace, bindings, evalset_version, outputs, errors)
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
        experiment = Experiment.objects.create(
            workspace=workspace,
            name=name[:160],
            description=(description or "").strip(),
            probe_name=(probe_name or "").strip()[:160],
            evalset_version=evalset_version,
            target_kind=target_kind,
            target_config=target_config,
            concurrency=concurrency,
            chunk_size=chunk_size,
            repetitions=repetitions,
            interval=interval_settings(workspace.interval_defaults, interval),
            outputs_from=spec.origin(workspace=workspace, config=target_config),
            created_by=user,
        )
        EvaluatorBinding.objects.bulk_create(
            EvaluatorBinding(experiment=experiment, position=i, **b) for i, b in enumerate(cleaned)
        )
        if launch:
            experiment = experiment_launch(experiment=experiment)
    return experiment


def target_validated(workspace, target, version, errors) -> tuple[str, dict]:
    target = target or {}
    try:
        spec = target_get(target.get("kind"))
    except ValueError as exc:
        errors["target.kind"] = [str(exc)]
        return target_get(None).name, {}
    config = {k: v for k, v in target.items() if k != "kind"}
    return spec.name, spec.clean(
        workspace=workspace, config=config, evalset_version=version, errors=errors
    )


def _clean_bindings(workspace, bindings, version, target_outputs, errors) -> list[dict]:
    if not bindings:
        errors["bindings"] = [_("Add at least one evaluator version.")]
        return []
    if len(bindings) > MAX_BINDINGS:
        errors["bindings"] = [
            _("At most %(max_bindings)s evaluators per experiment.")
            % {"max_bindings": MAX_BINDINGS}
        ]
        return []
    cleaned, seen = [], set()
    for i, binding in enumerate(bindings):
        result = _clean_binding(
            workspace, binding, version, target_outputs, f"bindings[{i}]", errors
        )
        if result is None:
            continue
        if result["evaluator_version"].pk in seen:
            errors[f"bindings[{i}]"] = [_("This evaluator version is already in the experiment.")]
        seen.add(result["evaluator_version"].pk)
        cleaned.append(result)
    return cleaned


def _clean_binding(workspace, binding, version, target_outputs, path, errors) -> dict | None:
    ev = binding.get("evaluator_version")
    if not isinstance(ev, EvaluatorVersion) or ev.evaluator.workspace_id != workspace.pk:
        errors[f"{path}.evaluator_version"] = [_("No such evaluator version in this workspace.")]
        return None
    if kind_get(ev.kind).pairwise:
        errors[f"{path}.evaluator_version"] = [
            _("%(ev)s judges two outputs side by side: use it in a pairwise run.") % {"ev": ev}
        ]
        return None
    variables = ev.config.get("input_variables") or []
    mapping = binding.get("mapping") or suggest_mapping(
        variables=variables, columns=version.columns, target_outputs=target_outputs
    )
    problems = mapping_problems(
        variables=variables,
        mapping=mapping,
        columns=version.columns,
        target_outputs=target_outputs,
    )
    if problems:
        errors[f"{path}.mapping"] = problems
    try:
        policy = validate_policy(binding.get("policy") or ev.default_policy)
    except ValueError as exc:
        errors[f"{path}.policy"] = [str(exc)]
        policy = {}
    ext = binding.get("ext") or {}
    if not isinstance(ext, dict) or not all(isinstance(v, str) for v in ext.values()):
        errors[f"{path}.ext"] = [_("ext maps names to strings.")]
    applies_to = binding.get("applies_to") or {}
    if problems := applies_to_problems(applies_to, version.columns):
        errors[f"{path}.applies_to"] = problems
    return {
        "evaluator_version": ev,
        "mapping": mapping,
        "policy": policy,
        "ext": ext,
        "applies_to": applies_to,
        **binding_turn_options(
            binding=binding, mapping=mapping, columns=version.columns, path=path, errors=errors
        ),
    }


def experiment_launch(*, experiment: Experiment) -> Experiment:
    """draft → queued: create the chunk rows, then enqueue the start task once committed."""
    with transaction.atomic():
        locked = Experiment.objects.select_for_update().get(pk=experiment.pk)
        if locked.status != ExperimentStatus.DRAFT:
            raise ValidationError(
                {
                    "status": _("Only a draft can be launched (this one is %(status)s).")
                    % {"status": locked.status}
                }
            )
        _plan_chunks(locked)
        run_launched(
            kind=EXPERIMENT,
            run_id=locked.pk,
            items_total=locked.items_total,
            results_total=locked.results_total,
            chunks_total=locked.chunks_total,
        )
    locked.refresh_from_db()
    return locked


def _plan_chunks(experiment: Experiment) -> None:
    """Split the version's items by position into chunks, one row per (range, kind of work)."""
    bounds, count = chunk_bounds(version=experiment.evalset_version, size=experiment.chunk_size)
    kinds = _chunk_kinds(experiment)
    # with a target, a range's evaluator chunks wait for its target chunk, which unblocks them;
    # a target whose outputs are pushed by a client waits for them (no worker computes them)
    first = FIRST_STATUS if ChunkKind.TARGET in kinds else {}
    if not experiment.target_spec.runs_on_workers:
        first = {**first, ChunkKind.TARGET: ChunkStatus.WAITING}
    chunks = []
    for index, start in enumerate(bounds):
        end = bounds[index + 1] if index + 1 < len(bounds) else math.inf
        for kind in kinds:
            chunks.append(
                ExperimentChunk(
                    experiment=experiment,
                    index=index,
                    kind=kind,
                    status=first.get(kind, ChunkStatus.PENDING),
                    position_from=start,
                    position_to=end if end != math.inf else 2**62,
                )
            )
    ExperimentChunk.objects.bulk_create(chunks)
    experiment.items_total = count
    experiment.results_total = _results_expected(experiment, count)
    experiment.chunks_total = len(chunks)


def chunk_bounds(*, version: EvalSetVersion, size: int) -> tuple[list[int], int]:
    """The first position of each chunk of `size` rows, and the row count.

    A committed version's positions are 0…n-1 (renumbered at commit) and its row count is
    stored, so two index probes (the lowest and highest position) are enough: no request reads
    a million positions. Only a version whose positions have gaps (rows written by hand) is
    read position by position, so its chunks still hold `size` rows each.
    """
    rows = EvalSetItem.objects.filter(evalset_id=version.evalset_id, version=version)
    ends = rows.order_by("position").values_list("position", flat=True)
    low, high = ends.first(), ends.reverse().first()
    if low is None:
        return [], 0
    if high - low + 1 == version.item_count:
        return list(range(low, high + 1, size)), version.item_count
    ordered = list(ends)
    return ordered[::size], len(ordered)


def _results_expected(experiment: Experiment, rows: int) -> int:
    """Rows × repetitions for each binding, counting only the rows a filtered binding scores."""
    filters = [b.applies_to for b in experiment.bindings.all()]
    total = sum(rows for f in filters if not f)
    if any(filters):
        items = experiment.evalset_version.items.values_list("data", "tags")
        for data, tags in items.iterator(5000):
            total += sum(applies(f, data=data, tags=tags) for f in filters if f)
    return total * experiment.repetitions


def _chunk_kinds(experiment: Experiment) -> list[str]:
    """The target (when it produces output), then each queue the bound evaluators' kinds use."""
    kinds = experiment.bindings.values_list("evaluator_version__kind", flat=True)
    queues = {kind_get(kind).queue for kind in kinds}
    ordered = [q for q in (ChunkKind.CODE, ChunkKind.LLM) if q in queues]
    if experiment.target_spec.produces_output:
        ordered.insert(0, ChunkKind.TARGET)
    return ordered


def experiment_cancel(*, experiment: Experiment) -> Experiment:
    """Stop a run (`runs.services.run_cancel`)."""
    return run_cancel(kind=EXPERIMENT, run=experiment)


def experiment_retry_failed(*, experiment: Experiment) -> RetryCounts:
    """Run the failed rows again, into the same experiment, and say how many: the rows whose
    target call failed (errors, timeouts) are called again — only those — and then scored; the
    rows whose evaluator errored or timed out (or never wrote a result) are scored again."""
    return run_retry_failed(kind=EXPERIMENT, run=experiment)


def experiment_clone(
    *,
    experiment: Experiment,
    user: AbstractBaseUser,
    name: str | None = None,
    versions: dict[int, EvaluatorVersion] | None = None,
    evalset_version: EvalSetVersion | None = None,
) -> Experiment:
    """A new draft with the same set-up; `versions` swaps evaluator versions by evaluator id."""
    versions = versions or {}
    bindings = []
    for b in experiment.bindings.select_related("evaluator_version"):
        ev = versions.get(b.evaluator_version.evaluator_id, b.evaluator_version)
        same = ev.pk == b.evaluator_version_id
        bindings.append(
            {
                "evaluator_version": ev,
                "mapping": b.mapping if same else None,
                "policy": b.policy,
                "ext": b.ext,
                "applies_to": b.applies_to,
                **{key: getattr(b, key) for key in TURN_KEYS},
            }
        )
    target = {"kind": experiment.target_kind, **experiment.target_config}
    clone = experiment_create(
        workspace=experiment.workspace,
        user=user,
        name=name or f"{experiment.name} (clone)",
        evalset_version=evalset_version or experiment.evalset_version,
        bindings=bindings,
        description=experiment.description,
        probe_name=experiment.probe_name,
        target=target,
        concurrency=experiment.concurrency,
        chunk_size=experiment.chunk_size,
        repetitions=experiment.repetitions,
        interval=experiment.interval,
    )
    Experiment.objects.filter(pk=clone.pk).update(cloned_from=experiment)
    return clone


def workspace_interval_defaults_set(*, workspace, interval: dict) -> dict:
    """The workspace's default interval settings for new runs (a run may override them)."""
    if problems := interval_problems(interval):
        raise ValidationError({"interval": problems})
    workspace.interval_defaults = {k: v for k, v in interval.items()}
    workspace.save(update_fields=["interval_defaults"])
    return interval_settings(workspace.interval_defaults)


def experiment_mark_baseline(*, experiment: Experiment, is_baseline: bool) -> Experiment:
    """Mark (or unmark) a run as a baseline: `assay gate --baseline latest` compares a
    candidate with the newest completed baseline on its evalset."""
    if is_baseline and experiment.status != ExperimentStatus.COMPLETED:
        raise ValidationError({"is_baseline": _("Only a completed run can be a baseline.")})
    experiment.is_baseline = is_baseline
    experiment.save(update_fields=["is_baseline"])
    return experiment


def result_correct(
    *,
    result: Result,
    user: AbstractBaseUser,
    verdict: str,
    note: str,
    score: float | None = None,
) -> Result:
    """A human overrides one result's verdict (and optionally score); the original stays."""
    from ..results.aggregates import aggregates_refresh

    if verdict not in (*Verdict.values, ""):
        raise ValidationError({"verdict": _("Use pass, fail, unknown (or empty to undo).")})
    if not (note or "").strip() and verdict:
        raise ValidationError({"note": _("Say why you correct this result.")})
    if score is not None and (not math.isfinite(score) or not 0 <= score <= 1):
        raise ValidationError({"score": _("A score is a number in [0, 1].")})
    result.human_verdict, result.human_score = verdict, score if verdict else None
    result.correction_note = (note or "").strip() if verdict else ""
    result.corrected_by, result.corrected_at = (user, timezone.now()) if verdict else (None, None)
    result.save(
        update_fields=[
            "human_verdict",
            "human_score",
            "correction_note",
            "corrected_by",
            "corrected_at",
        ]
    )
    aggregates_refresh(experiment=result.experiment, binding_ids=[result.binding_id])
    return result
