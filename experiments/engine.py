"""The run engine: chunk work, idempotent result upserts, progress, finalisation, the reaper.

Every function takes ids or rows and is safe to run twice: a chunk computes what is missing
(results that do not exist yet, or error/timeout rows in a retry round) and upserts only that.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from assay.caps import ERROR_BYTES, MESSAGE_BYTES, cap_json, cap_text
from evalsets.models import EvalSetItem
from evaluators.runner import evaluator_run_batch

from .mapping import build_turn
from .models import (
    ChunkKind,
    ChunkStatus,
    EvaluatorBinding,
    Experiment,
    ExperimentChunk,
    ExperimentStatus,
    Result,
    ResultStatus,
    TargetKind,
    TargetResult,
)

log = logging.getLogger(__name__)

MINI_BATCH = 250  # rows between cancel checks, progress bumps and writes
RESULT_UPDATE_FIELDS = ["status", "score", "reason", "verdict", "error", "stdout", "latency_ms",
                        "tokens_in", "tokens_out", "input", "rendered_request", "raw_answer",
                        "attempt", "updated_at"]  # fmt: skip


def experiment_begin(experiment_id: int) -> list[ExperimentChunk]:
    """queued → running (or keep running); return the chunks to enqueue now."""
    now = timezone.now()
    claimed = Experiment.objects.filter(
        pk=experiment_id, status__in=[ExperimentStatus.QUEUED, ExperimentStatus.RUNNING]
    ).update(status=ExperimentStatus.RUNNING, heartbeat_at=now)
    if not claimed:
        return []
    Experiment.objects.filter(pk=experiment_id, started_at__isnull=True).update(started_at=now)
    experiment = Experiment.objects.get(pk=experiment_id)
    pending = experiment.chunks.exclude(status=ChunkStatus.DONE)
    if experiment.target_kind == TargetKind.PROMPT:
        # evaluators of a range wait for its target chunk, which enqueues them when done
        done_targets = set(experiment.chunks.filter(kind=ChunkKind.TARGET,
                                                    status=ChunkStatus.DONE)
                           .values_list("index", flat=True))  # fmt: skip
        pending = [c for c in pending if c.kind == ChunkKind.TARGET or c.index in done_targets]
    if not list(pending):
        experiment_finalize_if_done(experiment_id)
    return list(pending)


def chunk_claim(chunk_id: int) -> ExperimentChunk | None:
    """Take a chunk unless it is done (a redelivered chunk is taken again and resumes)."""
    claimed = (
        ExperimentChunk.objects.filter(pk=chunk_id)
        .exclude(status=ChunkStatus.DONE)
        .update(status=ChunkStatus.RUNNING, attempts=F("attempts") + 1, claimed_at=timezone.now())
    )
    if not claimed:
        return None
    return ExperimentChunk.objects.select_related("experiment").get(pk=chunk_id)


def chunk_run(chunk: ExperimentChunk) -> str:
    """Do the chunk's missing work in mini-batches; 'done', 'cancelled' or 'skipped'."""
    experiment = chunk.experiment
    if experiment.status != ExperimentStatus.RUNNING:
        return "skipped"
    items = list(_chunk_items(chunk))
    for start in range(0, len(items), MINI_BATCH):
        if _cancel_requested(experiment.pk):
            experiment_mark_cancelled(experiment.pk)
            return "cancelled"
        batch = items[start : start + MINI_BATCH]
        if chunk.kind == ChunkKind.TARGET:
            written = _run_target(experiment, batch)
        else:
            written = _run_evaluators(experiment, chunk.kind, batch)
        _progress(experiment.pk, written if chunk.kind != ChunkKind.TARGET else 0)
    return "done"


def chunk_complete(chunk: ExperimentChunk) -> list[ExperimentChunk]:
    """Mark done once; return the chunks this one unblocks (evaluators after a target)."""
    done = (
        ExperimentChunk.objects.filter(pk=chunk.pk)
        .exclude(status=ChunkStatus.DONE)
        .update(status=ChunkStatus.DONE, finished_at=timezone.now())
    )
    if not done:
        return []
    Experiment.objects.filter(pk=chunk.experiment_id).update(chunks_done=F("chunks_done") + 1)
    unblocked = []
    if chunk.kind == ChunkKind.TARGET:
        unblocked = list(
            ExperimentChunk.objects.filter(
                experiment_id=chunk.experiment_id,
                index=chunk.index,
                kind__in=[ChunkKind.CODE, ChunkKind.LLM],
            ).exclude(status=ChunkStatus.DONE)
        )
    experiment_finalize_if_done(chunk.experiment_id)
    return unblocked


def _chunk_items(chunk: ExperimentChunk):
    return (
        EvalSetItem.objects.filter(
            version_id=chunk.experiment.evalset_version_id,
            position__gte=chunk.position_from,
            position__lt=chunk.position_to,
        )
        .order_by("position")
        .only("id", "item_id", "position", "data", "tags")
    )


def _cancel_requested(experiment_id: int) -> bool:
    return Experiment.objects.filter(pk=experiment_id, cancel_requested=True).exists()


def _progress(experiment_id: int, written: int) -> None:
    Experiment.objects.filter(pk=experiment_id).update(
        results_done=F("results_done") + written, heartbeat_at=timezone.now()
    )


# ----------------------------------------------------------------------------- evaluators


def _run_evaluators(experiment: Experiment, kind: str, items: list[EvalSetItem]) -> int:
    """Run each binding of `kind` on the rows that still lack a usable result; upsert them."""
    written = 0
    targets = _target_outputs(experiment, items)
    for binding in _bindings(experiment, kind):
        todo = _missing_items(experiment, binding, items)
        if not todo:
            continue
        turns = [build_turn(mapping=binding.mapping, data=item.data,
                            target_output=targets.get(item.pk), ext=binding.ext)
                 for item in todo]  # fmt: skip
        version = binding.evaluator_version
        outcomes = evaluator_run_batch(
            workspace=experiment.workspace,
            kind=version.kind,
            config=version.config,
            turns=turns,
            policy=binding.policy,
            score_meaning=version.score_meaning,
            version_key=f"evaluator-version:{version.public_id}",
            concurrency=experiment.concurrency,
        )
        written += _upsert_results(experiment, binding, todo, turns, outcomes)
    return written


def _bindings(experiment: Experiment, kind: str) -> list[EvaluatorBinding]:
    return list(experiment.bindings.select_related("evaluator_version")
                .filter(evaluator_version__kind=kind))  # fmt: skip


def _missing_items(experiment, binding, items: list[EvalSetItem]) -> list[EvalSetItem]:
    """Rows without a result; in a retry round also rows whose result is error/timeout."""
    existing = Result.objects.filter(
        experiment=experiment, binding=binding, item_id__in=[i.pk for i in items]
    )
    if experiment.retry_round:
        existing = existing.exclude(status__in=[ResultStatus.ERROR, ResultStatus.TIMEOUT])
    have = set(existing.values_list("item_id", flat=True))
    return [item for item in items if item.pk not in have]


def _upsert_results(experiment, binding, items, turns, outcomes) -> int:
    rows = [
        Result(
            experiment=experiment,
            binding=binding,
            item_id=item.pk,
            item_uid=item.item_id,
            position=item.position,
            tags=item.tags or [],
            status=o.status,
            score=o.score,
            reason=o.reason,  # outcomes come capped from the runner
            verdict=o.verdict,
            error=o.error,
            stdout=o.stdout,
            latency_ms=o.latency_ms,
            tokens_in=o.tokens_in,
            tokens_out=o.tokens_out,
            input=cap_json(turn),
            rendered_request=o.rendered_request,
            raw_answer=o.raw_answer,
            attempt=experiment.retry_round,
        )
        for item, turn, o in zip(items, turns, outcomes, strict=True)
    ]
    Result.objects.bulk_create(
        rows,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["experiment", "item", "binding"],
        update_fields=RESULT_UPDATE_FIELDS,
    )
    return len(rows)


# ----------------------------------------------------------------------------- target


def _target_outputs(experiment: Experiment, items: list[EvalSetItem]) -> dict[int, str]:
    if experiment.target_kind != TargetKind.PROMPT:
        return {}
    rows = TargetResult.objects.filter(
        experiment=experiment, item_id__in=[i.pk for i in items], status=ResultStatus.SUCCESS
    )
    return dict(rows.values_list("item_id", "output"))


def _run_target(experiment: Experiment, items: list[EvalSetItem]) -> int:
    from .target import target_run_batch

    have = TargetResult.objects.filter(experiment=experiment, item_id__in=[i.pk for i in items])
    if experiment.retry_round:
        have = have.filter(status=ResultStatus.SUCCESS)
    done = set(have.values_list("item_id", flat=True))
    todo = [item for item in items if item.pk not in done]
    if not todo:
        return 0
    outputs = target_run_batch(experiment=experiment, items=todo)
    TargetResult.objects.bulk_create(
        [
            TargetResult(
                experiment=experiment,
                item_id=item.pk,
                item_uid=item.item_id,
                **_bounded_target(out),
            )
            for item, out in zip(todo, outputs, strict=True)
        ],
        update_conflicts=True,
        unique_fields=["experiment", "item"],
        update_fields=[
            "status",
            "output",
            "error",
            "rendered_request",
            "latency_ms",
            "tokens_in",
            "tokens_out",
        ],
    )
    return len(todo)


def _bounded_target(out: dict) -> dict:
    """A target row at its stored sizes (the output itself is capped by the call path)."""
    return {**out, "error": cap_text(out["error"], ERROR_BYTES),
            "rendered_request": cap_json(out["rendered_request"])}  # fmt: skip


# ----------------------------------------------------------------------------- finishing


def experiment_finalize_if_done(experiment_id: int) -> bool:
    """The last chunk finalises: running → completed exactly once, then the aggregates."""
    if (
        ExperimentChunk.objects.filter(experiment_id=experiment_id)
        .exclude(status=ChunkStatus.DONE)
        .exists()
    ):
        return False
    # claim and aggregates commit together: nobody sees "completed" without its numbers
    with transaction.atomic():
        claimed = Experiment.objects.filter(pk=experiment_id,
                                            status=ExperimentStatus.RUNNING).update(
            status=ExperimentStatus.COMPLETED, finished_at=timezone.now(),
            heartbeat_at=timezone.now())  # fmt: skip
        if claimed:
            _settle(experiment_id)
    return bool(claimed)


def _settle(experiment_id: int) -> None:
    from .aggregates import aggregates_refresh
    from .calibration import calibrations_record

    _settle_counters(experiment_id)
    experiment = Experiment.objects.get(pk=experiment_id)
    calibrations_record(experiment=experiment)
    aggregates_refresh(experiment=experiment)


def _settle_counters(experiment_id: int) -> None:
    """Counters bumped by concurrent chunks are exact once everything is written."""
    count = Result.objects.filter(experiment_id=experiment_id).count()
    Experiment.objects.filter(pk=experiment_id).update(results_done=count)


def experiment_mark_cancelled(experiment_id: int) -> None:
    now = timezone.now()
    changed = Experiment.objects.filter(
        pk=experiment_id, status__in=[ExperimentStatus.RUNNING, ExperimentStatus.QUEUED]
    ).update(status=ExperimentStatus.CANCELLED, finished_at=now)
    if changed:
        _settle(experiment_id)


def experiment_fail(experiment_id: int, message: str) -> None:
    changed = Experiment.objects.filter(
        pk=experiment_id, status__in=[ExperimentStatus.RUNNING, ExperimentStatus.QUEUED]
    ).update(status=ExperimentStatus.FAILED, finished_at=timezone.now(),
             error_message=cap_text(message, MESSAGE_BYTES))  # fmt: skip
    if changed:
        _settle(experiment_id)


def stale_experiments() -> list[int]:
    """Active runs whose heartbeat stopped, with their stuck chunks reset to pending.

    Messages can be lost (a broker restarted without persistence) or held by a dead worker;
    the chunks' idempotent claim makes enqueueing them again safe.
    """
    cutoff = timezone.now() - timedelta(seconds=settings.ASSAY_EXPERIMENT_STALE_S)
    stale = Experiment.objects.filter(
        Q(status=ExperimentStatus.RUNNING) | Q(status=ExperimentStatus.QUEUED),
        heartbeat_at__lt=cutoff,
    )
    return [experiment.pk for experiment in stale if _revive_chunks(experiment)]


def _revive_chunks(experiment: Experiment) -> bool:
    """Reset stuck chunks to pending; fail the run when a chunk has used up its attempts."""
    stuck = experiment.chunks.exclude(status=ChunkStatus.DONE)
    if stuck.filter(attempts__gte=settings.ASSAY_CHUNK_MAX_ATTEMPTS).exists():
        experiment_fail(
            experiment.pk,
            "A chunk failed repeatedly (its worker died or it hung); the finished rows are kept.",
        )
        return False
    stuck.update(status=ChunkStatus.PENDING)
    Experiment.objects.filter(pk=experiment.pk).update(heartbeat_at=timezone.now())
    return True


def experiment_run_inline(experiment_id: int) -> Experiment:
    """Run a launched experiment in this process, chunk by chunk (demo data, operators' --inline).

    Uses the same claim/run/complete steps as the tasks, so the result is identical.
    """
    pending = experiment_begin(experiment_id)
    while pending:
        chunk = chunk_claim(pending.pop(0).pk)
        if chunk is None:
            continue
        if chunk_run(chunk) != "done":
            break
        pending.extend(chunk_complete(chunk))
    return Experiment.objects.get(pk=experiment_id)
