"""Chunk work: claim under a lease, run what is missing in mini-batches, commit each with a
lease check and a conditional progress bump, complete once.

Every function takes ids or rows and is safe to run twice: a chunk computes what is missing
(results that do not exist yet, or error/timeout rows in a retry round) and upserts only that.
"""

from __future__ import annotations

import uuid
from functools import partial

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from assay.safety.caps import ANSWER_BYTES, ERROR_BYTES, cap_json, cap_text
from assay.vocabulary import ResultStatus
from evalsets.models import EvalSetItem
from evaluators.kinds import kind_get
from evaluators.runner import RunCancelled, RunOutcome, evaluator_run_batch

from ..mapping import applies, target_sources
from ..models import (
    ChunkKind,
    ChunkStatus,
    EvaluatorBinding,
    Experiment,
    ExperimentChunk,
    Result,
    TargetResult,
)
from . import lifecycle
from .dispatch import chunks_dispatch
from .finish import experiment_fail, experiment_finalize_if_done, experiment_settle_cancel
from .leases import ChunkLease
from .per_turn import Case, binding_cases, stale_turns_delete
from .turns import target_outputs

MINI_BATCH = 250  # rows between cancel checks, progress bumps and writes
# A target batch keeps `concurrency` calls in flight until its last rows, then waits for the
# slowest: small batches would spend much of their time in that tail. Cancelling still stops
# the calls in flight at once (the cancel event reaches them).
TARGET_MINI_BATCH = 2000
RESULT_UPDATE_FIELDS = [
    "status",
    "score",
    "reason",
    "verdict",
    "error",
    "stdout",
    "latency_ms",
    "tokens_in",
    "tokens_out",
    "cost",
    "rendered_request",
    "raw_answer",
    "attempt",
    "cached",
    "updated_at",
]
TARGET_UPDATE_FIELDS = [
    "status",
    "output",
    "trajectory",
    "conversation",
    "error",
    "rendered_request",
    "raw_response",
    "latency_ms",
    "tokens_in",
    "tokens_out",
    "cost",
]


class ChunkStopped(Exception):
    """This runner must stop: cancel was asked, or its lease or the experiment moved on."""


def experiment_begin(*, experiment_id: int) -> list[ExperimentChunk]:
    """queued → running (or keep running); return the chunks dispatched now."""
    now = timezone.now()
    if not lifecycle.experiment_move(experiment_id, "start", heartbeat_at=now):
        return []
    Experiment.objects.filter(pk=experiment_id, started_at__isnull=True).update(started_at=now)
    unfinished = ExperimentChunk.objects.filter(
        experiment_id=experiment_id, status__in=lifecycle.UNFINISHED_CHUNKS
    )
    if not unfinished.exists():
        experiment_finalize_if_done(experiment_id=experiment_id)
        return []
    return chunks_dispatch()


def chunk_claim(*, chunk_id: int) -> tuple[ExperimentChunk, uuid.UUID] | None:
    """Take a chunk under a fresh lease, or None when it is done or someone holds it."""
    token = lifecycle.chunk_claim(chunk_id)
    if token is None:
        return None
    return ExperimentChunk.objects.select_related("experiment").get(pk=chunk_id), token


def chunk_unclaimable_reason(*, chunk_id: int) -> str:
    """Why a delivered chunk was not taken (for the task's result and logs)."""
    status = ExperimentChunk.objects.filter(pk=chunk_id).values_list("status", flat=True).first()
    return {
        ChunkStatus.DONE: "already done",
        ChunkStatus.RUNNING: "held by another worker",
        None: "no such chunk",
    }.get(status, f"not claimable ({status})")


def chunk_run(*, chunk: ExperimentChunk, token: uuid.UUID, keeper: bool = True) -> str:
    """Do the chunk's missing work; 'done', 'cancelled', 'stopped' (lease lost) or 'skipped'.

    `keeper` runs the lease keeper thread (tasks); the inline runner checks between batches.
    """
    experiment = chunk.experiment
    if not lifecycle.accepts_work(experiment):
        lifecycle.chunk_move(chunk.pk, "release", token=token)
        experiment_settle_cancel(experiment_id=experiment.pk)
        return "cancelled" if experiment.cancel_requested else "skipped"
    with ChunkLease(chunk.pk, experiment.pk, token, keeper=keeper) as lease:
        try:
            _work(chunk, lease)
        except (ChunkStopped, RunCancelled):
            return _stopped(chunk, lease)
    return "done"


def _work(chunk: ExperimentChunk, lease: ChunkLease) -> None:
    items = list(_chunk_items(chunk))
    work = WORK[chunk.kind]
    size = BATCH_ROWS[chunk.kind]
    for start in range(0, len(items), size):
        if not lease.check():
            raise ChunkStopped(lease.reason)
        work(chunk, items[start : start + size], lease)


def _stopped(chunk: ExperimentChunk, lease: ChunkLease) -> str:
    """Give the chunk back (if still ours) and, after a cancel, end the run as cancelled."""
    lifecycle.chunk_move(chunk.pk, "release", token=lease.token)
    if experiment_settle_cancel(experiment_id=chunk.experiment_id) or lease.reason == "cancelled":
        return "cancelled"
    return "stopped"


def chunk_complete(*, chunk: ExperimentChunk, token: uuid.UUID) -> list[ExperimentChunk]:
    """Mark done once (only by the lease holder); return the chunks dispatched next."""
    if not lifecycle.chunk_move(chunk.pk, "done", token=token, finished_at=timezone.now()):
        return []
    return chunk_finished(chunk=chunk)


def chunk_finished(*, chunk: ExperimentChunk) -> list[ExperimentChunk]:
    """After a chunk moved to done (once): count it, unblock the evaluator chunks waiting on
    it, finish the run if that was the last, and return the chunks dispatched next."""
    Experiment.objects.filter(pk=chunk.experiment_id).update(chunks_done=F("chunks_done") + 1)
    # Only evaluator chunks behind a target wait, and only that target chunk can finish first.
    for waiting in ExperimentChunk.objects.filter(
        experiment_id=chunk.experiment_id, index=chunk.index, status=ChunkStatus.WAITING
    ).exclude(kind=ChunkKind.TARGET):
        lifecycle.chunk_move(waiting.pk, "unblock")
    experiment_finalize_if_done(
        experiment_id=chunk.experiment_id
    )  # or settles a cancel that was asked
    return chunks_dispatch()


def chunk_failed(*, chunk_id: int, message: str) -> None:
    """A chunk's task raised: the chunk and its experiment fail at once (rows are kept)."""
    chunk = ExperimentChunk.objects.filter(pk=chunk_id).first()
    if chunk is None:
        return
    lifecycle.chunk_move(chunk_id, "fail", error=cap_text(message, ERROR_BYTES))
    experiment_fail(experiment_id=chunk.experiment_id, message=f"A chunk of work failed: {message}")


def _chunk_items(chunk: ExperimentChunk):
    return (
        EvalSetItem.objects.of_version(chunk.experiment.evalset_version)
        .filter(
            position__gte=chunk.position_from,
            position__lt=chunk.position_to,
        )
        .order_by("position")
        .only("id", "item_id", "position", "data", "tags")
    )


def _commit(chunk: ExperimentChunk, lease: ChunkLease, count: int, write) -> None:
    """Rows, lease check and progress bump in one transaction: a runner that lost its lease,
    or a run that was cancelled meanwhile, writes nothing (the rows roll back)."""
    with transaction.atomic():
        write()
        if not lifecycle.lease_renew(chunk.pk, lease.token):
            lease.reason = "lost"
            raise ChunkStopped("lost")
        if not lifecycle.experiment_progress(chunk.experiment_id, count):
            lease.reason = "cancelled"
            raise ChunkStopped("the experiment is no longer running")


# ----------------------------------------------------------------------------- evaluators


def _run_evaluators(chunk: ExperimentChunk, items: list[EvalSetItem], lease: ChunkLease) -> None:
    """Run each binding of the chunk's kind on the rows (and repetitions) that still lack a
    usable result."""
    experiment = chunk.experiment
    for repeat in range(experiment.repetitions):
        targets = target_outputs(
            experiment=experiment, item_ids=[i.pk for i in items], repeat=repeat
        )
        for binding in _bindings(experiment, chunk.kind):
            scored = [i for i in items if applies(binding.applies_to, data=i.data, tags=i.tags)]
            todo = _missing_items(experiment, binding, scored, repeat)
            if todo:
                rows = _evaluate(experiment, binding, todo, targets, repeat, lease)
                write = partial(results_upsert, rows=rows, prune_turns=binding.per_turn)
                # progress counts rows scored, not turns: results_total is rows × bindings
                _commit(chunk, lease, len(todo), write)


def _evaluate(experiment, binding, items, targets, repeat, lease) -> list[Result]:
    """Result rows of one binding on `items`: a row whose mapped target output is missing is
    skipped with the target's own error (unknown), as is a per-turn row without an assistant
    turn; the rest go through the runner (one case per row, or per assistant turn)."""
    wanted = target_sources(binding.mapping)
    unfed = [item for item in items if wanted and targets.missing(item.pk)]
    fed = [item for item in items if item not in unfed]
    cases, unscored = binding_cases(binding=binding, items=fed, outputs=targets.outputs)
    unscored += [(item, targets.missing(item.pk)) for item in unfed]
    version = binding.evaluator_version
    outcomes = evaluator_run_batch(
        workspace=experiment.workspace,
        kind=version.kind,
        config=version.config,
        turns=[case.turn for case in cases],
        policy=binding.policy,
        score_meaning=version.score_meaning,
        # a later repetition of the same input must sample the judge again, not the cache
        version_key=f"evaluator-version:{version.public_id}" + (f":{repeat}" if repeat else ""),
        concurrency=experiment.concurrency,
        cancel=lease.stop,
    )
    skipped = [
        RunOutcome(status=ResultStatus.SKIPPED, error=cap_text(why, ERROR_BYTES))
        for _item, why in unscored
    ]
    cases += [Case(item, {}) for item, _why in unscored]
    return _result_rows(experiment, binding, cases, outcomes + skipped, repeat)


def _bindings(experiment: Experiment, queue: str) -> list[EvaluatorBinding]:
    """The bindings whose evaluator kind runs on `queue` (the chunk's kind)."""
    bindings = experiment.bindings.select_related("evaluator_version")
    return [b for b in bindings if kind_get(b.evaluator_version.kind).queue == queue]


def _missing_items(experiment, binding, items: list[EvalSetItem], repeat: int) -> list:
    """Rows without a result; in a retry round also rows with an error/timeout result (of any
    of their turns: a row's turns are written together, so a row has all of them or none)."""
    existing = Result.objects.filter(
        experiment=experiment, binding=binding, repeat=repeat, item_id__in=[i.pk for i in items]
    )
    have = set(existing.values_list("item_id", flat=True))
    if experiment.retry_round:
        failed = existing.filter(status__in=[ResultStatus.ERROR, ResultStatus.TIMEOUT])
        have -= set(failed.values_list("item_id", flat=True))
    return [item for item in items if item.pk not in have]


# What a Result keeps of a RunOutcome as it is.
STORED_OUTCOME = (
    "status score reason verdict error stdout latency_ms tokens_in tokens_out cost "
    "rendered_request raw_answer cached"
).split()


def _result_rows(experiment, binding, cases: list[Case], outcomes, repeat: int) -> list[Result]:
    return [
        Result(
            experiment=experiment,
            binding=binding,
            item_id=case.item.pk,
            item_uid=case.item.item_id,
            repeat=repeat,
            turn=case.index,
            position=case.item.position,
            tags=case.item.tags or [],
            **{name: getattr(o, name) for name in STORED_OUTCOME},  # capped by the runner
            attempt=experiment.retry_round,
        )
        for case, o in zip(cases, outcomes, strict=True)
    ]


def results_upsert(*, rows: list[Result], prune_turns: bool = False) -> None:
    """Insert results, or update the row already there for (experiment, position, binding,
    repeat, turn) — the position names the item in the pinned version: two runners that both
    found a row missing still leave exactly one. `prune_turns` (per-turn bindings) also drops
    turns the rows' items no longer have."""
    Result.objects.bulk_create(
        rows,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["experiment", "position", "binding", "repeat", "turn"],
        update_fields=RESULT_UPDATE_FIELDS,
    )
    if prune_turns:
        stale_turns_delete(rows=rows)


# ----------------------------------------------------------------------------- target


def _run_target(chunk: ExperimentChunk, items: list[EvalSetItem], lease: ChunkLease) -> None:
    experiment = chunk.experiment
    spec = experiment.target_spec
    for repeat in range(experiment.repetitions):
        have = TargetResult.objects.filter(
            experiment=experiment, repeat=repeat, item_id__in=[i.pk for i in items]
        )
        if experiment.retry_round:
            have = have.filter(status=ResultStatus.SUCCESS)
        done = set(have.values_list("item_id", flat=True))
        todo = [item for item in items if item.pk not in done]
        if not todo:
            continue
        outputs = spec.run_batch(
            experiment=experiment, items=todo, repeat=repeat, cancel=lease.stop
        )
        rows = [
            target_row(experiment=experiment, item=item, repeat=repeat, fields=out)
            for item, out in zip(todo, outputs, strict=True)
        ]
        _commit(chunk, lease, 0, lambda rows=rows: _target_upsert(rows))


def target_row(*, experiment, item, repeat: int, fields: dict) -> TargetResult:
    """A TargetResult at its stored sizes (text is capped here, whoever produced it)."""
    return TargetResult(
        experiment=experiment,
        item_id=item.pk,
        item_uid=item.item_id,
        repeat=repeat,
        **{
            **fields,
            "output": cap_text(fields.get("output") or "", ANSWER_BYTES),
            "trajectory": cap_text(fields["trajectory"], ANSWER_BYTES)
            if fields.get("trajectory") is not None
            else None,
            "raw_response": cap_text(fields["raw_response"], ANSWER_BYTES)
            if fields.get("raw_response") is not None
            else None,
            "error": cap_text(fields.get("error") or "", ERROR_BYTES),
            "rendered_request": cap_json(fields.get("rendered_request")),
            "conversation": fields.get("conversation"),  # checked and capped by its target
        },
    )


def _target_upsert(rows: list[TargetResult]) -> None:
    TargetResult.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["experiment", "item", "repeat"],
        update_fields=TARGET_UPDATE_FIELDS,
    )


WORK = {
    ChunkKind.TARGET: _run_target,
    ChunkKind.CODE: _run_evaluators,
    ChunkKind.LLM: _run_evaluators,
}
BATCH_ROWS = {
    ChunkKind.TARGET: TARGET_MINI_BATCH,
    ChunkKind.CODE: MINI_BATCH,
    ChunkKind.LLM: MINI_BATCH,
}
