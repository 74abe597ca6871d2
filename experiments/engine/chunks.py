"""Chunk work: claim under a lease, run what is missing in mini-batches, commit each with a
lease check and a conditional progress bump, complete once.

Every function takes ids or rows and is safe to run twice: a chunk computes what is missing
(results that do not exist yet, or error/timeout rows in a retry round) and upserts only that.
"""

from __future__ import annotations

import uuid
from contextlib import nullcontext
from functools import partial

from django.db import connection, transaction
from django.db.models import F, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from assay.safety.caps import ANSWER_BYTES, ERROR_BYTES, cap_json, cap_text
from assay.vocabulary import ResultStatus
from evalsets.models import EvalSetItem
from evaluators.runner import RunCancelled

from ..models import ChunkKind, ChunkStatus, Experiment, ExperimentChunk, Result, TargetResult
from . import lifecycle
from .dispatch import QUEUE, chunks_dispatch
from .finish import experiment_fail, experiment_finalize_if_done, experiment_settle_cancel
from .leases import ChunkLease
from .progress import calls_counted, judge_calls_counted
from .scoring import EvaluatorWork
from .turns import json_loads
from .writes import (
    COLUMNS,
    TARGET_UPDATE_FIELDS,
    results_write,
    stale_turns_delete,
    target_results_write,
)

# Rows between progress bumps and writes of an LLM judge's chunk. A judge batch, like a
# target's, keeps `concurrency` calls in flight until its last rows and then waits for the
# slowest: at 250 rows the four tails of a 1,000-row chunk left the run's slots a tenth idle
# (two workers' batches end together). A batch's answers reach the response cache as they
# come (every 0.1 s), so rows lost with a crashed worker are not paid for again; cancel
# still stops the calls in flight at once.
MINI_BATCH = 1000
# A code chunk's sandbox child runs the whole mini-batch (starting one costs ~20 ms, about a
# hundred rows' work) and cancel kills it at once, so a code chunk commits in larger steps.
CODE_MINI_BATCH = 1000
# A target batch keeps `concurrency` calls in flight until its last rows, then waits for the
# slowest: small batches would spend much of their time in that tail. Cancelling still stops
# the calls in flight at once (the cancel event reaches them).
TARGET_MINI_BATCH = 2000


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
    items = _chunk_items(chunk)
    work = WORK[chunk.kind](chunk, lease)  # reads what every mini-batch shares, once
    size = BATCH_ROWS[chunk.kind]
    judged = chunk.kind == ChunkKind.LLM  # its judge calls are counted as they finish
    with judge_calls_counted(chunk, lease) if judged else nullcontext() as calls:
        for start in range(0, len(items), size):
            if not lease.check():
                raise ChunkStopped(lease.reason)
            batch = items[start : start + size]
            if calls is not None:
                calls.batch(len(batch) * len(work.bindings) * chunk.experiment.repetitions)
            work(batch)


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
    queues = {QUEUE[chunk.kind]}  # the place this chunk held, and those it unblocked
    for waiting in ExperimentChunk.objects.filter(
        experiment_id=chunk.experiment_id, index=chunk.index, status=ChunkStatus.WAITING
    ).exclude(kind=ChunkKind.TARGET):
        if lifecycle.chunk_move(waiting.pk, "unblock"):
            queues.add(QUEUE[waiting.kind])
    experiment_finalize_if_done(
        experiment_id=chunk.experiment_id
    )  # or settles a cancel that was asked
    return chunks_dispatch(tuple(sorted(queues)))


def chunk_failed(*, chunk_id: int, message: str) -> None:
    """A chunk's task raised: the chunk and its experiment fail at once (rows are kept)."""
    chunk = ExperimentChunk.objects.filter(pk=chunk_id).first()
    if chunk is None:
        return
    lifecycle.chunk_move(chunk_id, "fail", error=cap_text(message, ERROR_BYTES))
    experiment_fail(experiment_id=chunk.experiment_id, message=f"A chunk of work failed: {message}")


class ItemRow:
    """What the chunk path reads of a row (values, not a model instance: a chunk builds
    thousands of them and needs none of a model's machinery)."""

    __slots__ = ("pk", "item_id", "position", "data", "tags")

    def __init__(self, pk, item_id, position, data, tags) -> None:
        self.pk, self.item_id, self.position, self.data, self.tags = (
            pk,
            item_id,
            position,
            data,
            tags,
        )


def _chunk_items(chunk: ExperimentChunk) -> list[ItemRow]:
    # data and tags come as their JSON text and are parsed here (by orjson, several times
    # faster than the JSONField's json.loads; the item read is a tenth of a code chunk's time)
    rows = (
        EvalSetItem.objects.of_version(chunk.experiment.evalset_version)
        .filter(position__gte=chunk.position_from, position__lt=chunk.position_to)
        .order_by("position")
        .annotate(data_text=Cast("data", TextField()), tags_text=Cast("tags", TextField()))
        .values_list("id", "item_id", "position", "data_text", "tags_text")
    )
    tag_lists: dict[str, list] = {}  # one list per distinct tags text: parsed once, and the
    # writes encode each distinct list once (`writes._copy_rows`)
    return [
        ItemRow(pk, uid, at, json_loads(data), _tags(tag_lists, tags))
        for pk, uid, at, data, tags in rows
    ]


def _tags(tag_lists: dict[str, list], text: str | None) -> list | None:
    if text is None:
        return None
    if (tags := tag_lists.get(text)) is None:
        tags = tag_lists[text] = json_loads(text)
    return tags


def _commit(
    chunk: ExperimentChunk, lease: ChunkLease, count: int, write, *, targets: int = 0
) -> None:
    """Rows, lease check and progress bump (`count` results, `targets` target outputs) in one
    transaction: a runner that lost its lease, or a run that was cancelled meanwhile, writes
    nothing (the rows roll back)."""
    with transaction.atomic():
        _flush_later()
        write()
        if not lifecycle.lease_renew(chunk.pk, lease.token):
            lease.reason = "lost"
            raise ChunkStopped("lost")
        if not lifecycle.experiment_progress(chunk.experiment_id, count, targets=targets):
            lease.reason = "cancelled"
            raise ChunkStopped("the experiment is no longer running")
        if (calls := lease.progress) is not None:
            calls.settle()  # the judge calls answered so far are written now


def _flush_later() -> None:
    """PostgreSQL: this transaction's commit does not wait for its WAL (a mini-batch's rows
    and index entries) to reach the disk, so the runner goes on scoring meanwhile. Safe as the
    work is idempotent: a crash loses at most the last such commits whole (rows, lease renewal
    and progress together, in WAL order) and the chunk runs them again; the chunk's `done`
    commits synchronously, which flushes every commit before it."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


# ----------------------------------------------------------------------------- evaluators


def _evaluator_work(chunk: ExperimentChunk, lease: ChunkLease) -> EvaluatorWork:
    """Each binding of the chunk's kind on the rows (and repetitions) still lacking a usable
    result; a mini-batch's rows of every binding commit together."""

    def commit(count: int, rows: list[tuple], pruned: list[tuple]) -> None:
        _commit(chunk, lease, count, partial(_results_commit, rows, pruned))

    return EvaluatorWork(chunk.experiment, chunk.kind, lease.stop, commit)


def _results_commit(rows: list[tuple], pruned: list[tuple]) -> None:
    results_write(rows=rows)
    if pruned:
        stale_turns_delete(rows=pruned)


def results_upsert(*, rows: list[Result], prune_turns: bool = False) -> None:
    """Insert results, or update the row already there for the results' unique key: two
    runners that both found a row missing still leave exactly one. `prune_turns` (per-turn
    bindings) also drops turns the rows' items no longer have."""
    tuples = [tuple(getattr(row, name) for name in COLUMNS) for row in rows]
    _results_commit(tuples, tuples if prune_turns else [])


# ----------------------------------------------------------------------------- target


def _run_target(chunk: ExperimentChunk, lease: ChunkLease, items: list[ItemRow]) -> None:
    experiment = chunk.experiment
    spec = experiment.target_spec
    for repeat in range(experiment.repetitions):
        have = TargetResult.objects.filter(
            experiment=experiment, repeat=repeat, item_id__in=[i.pk for i in items]
        )
        if experiment.retry_round and spec.recalls_failed:  # call the failed rows again
            have = have.filter(status=ResultStatus.SUCCESS)
        done = set(have.values_list("item_id", flat=True))
        todo = [item for item in items if item.pk not in done]
        if not todo:
            continue
        counted = len(todo) if spec.calls_are_rows else 0
        with calls_counted(chunk, lease, rows=counted) as calls:
            outputs = spec.run_batch(
                experiment=experiment, items=todo, repeat=repeat, cancel=lease.stop
            )
        rows = [
            target_row(experiment=experiment, item=item, repeat=repeat, fields=out)
            for item, out in zip(todo, outputs, strict=True)
        ]
        unreported = len(rows) - calls.reported  # the keeper reported the rest as they landed
        _commit(chunk, lease, 0, lambda rows=rows: _target_upsert(rows), targets=unreported)


def target_row(*, experiment, item, repeat: int, fields: dict) -> TargetResult:
    """A TargetResult at its stored sizes (text is capped here, whoever produced it)."""
    return TargetResult(
        experiment=experiment,
        item_id=item.pk,
        item_uid=item.item_id,
        repeat=repeat,
        retry_round=experiment.retry_round,
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
    target_results_write(rows=rows, update_fields=TARGET_UPDATE_FIELDS)


# kind → (chunk, lease) → the function each mini-batch of item rows is given to
WORK = {
    ChunkKind.TARGET: lambda chunk, lease: partial(_run_target, chunk, lease),
    ChunkKind.CODE: _evaluator_work,
    ChunkKind.LLM: _evaluator_work,
}
BATCH_ROWS = {
    ChunkKind.TARGET: TARGET_MINI_BATCH,
    ChunkKind.CODE: CODE_MINI_BATCH,
    ChunkKind.LLM: MINI_BATCH,
}
