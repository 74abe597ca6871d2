"""An experiment chunk's work: read its rows, run what is missing (the target's outputs, or
its evaluators' results) in mini-batches, commit each with the lease check and the progress
bump of `runs.batch_commit`.

Safe to run twice: a chunk computes what is missing (results that do not exist yet, or
error/timeout rows in a retry round) and upserts only that.
"""

from __future__ import annotations

from contextlib import nullcontext
from functools import partial

from django.db import connection
from django.db.models import F, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from assay.celery import worker_queues
from assay.safety.caps import ANSWER_BYTES, ERROR_BYTES, cap_json, cap_text
from assay.vocabulary import ResultStatus
from evalsets.models import EvalSetItem

from ..models import ChunkKind, ExperimentChunk, Result, TargetResult
from ..runs.chunks import ChunkStopped, batch_commit
from ..runs.leases import ChunkLease
from .evaluator_work import EvaluatorWork
from .progress import calls_counted, judge_calls_counted
from .streamed import LandedRows
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


def chunk_work(chunk: ExperimentChunk, lease: ChunkLease) -> None:
    """The chunk's rows in mini-batches of its kind's size, each given to its kind's work."""
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
    transaction (`runs.batch_commit`); the ETA counts down from the last move."""
    bump = {"targets_done": F("targets_done") + targets} if targets else {}
    if count or targets:
        bump["progressed_at"] = timezone.now()
    batch_commit(lease, count, partial(_flushed_later, write), **bump)


def _flushed_later(write) -> None:
    _flush_later()
    write()


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


def _evaluator_work(chunk: ExperimentChunk, lease: ChunkLease, kind=None) -> EvaluatorWork:
    """Each binding of the chunk's kind (or of `kind`: a target chunk scoring its rows as they
    land) on the rows (and repetitions) still lacking a usable result; a mini-batch's rows of
    every binding commit together."""

    def commit(count: int, rows: list[tuple], pruned: list[tuple]) -> None:
        _commit(chunk, lease, count, partial(_results_commit, rows, pruned))

    return EvaluatorWork(chunk.experiment, kind or chunk.kind, lease.stop, commit)


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
        if todo:
            _target_batch(chunk, lease, todo, repeat)


def _target_batch(chunk: ExperimentChunk, lease: ChunkLease, todo: list, repeat: int) -> None:
    """The target on `todo`; its rows written as they land (`_landed_rows`), or all at the
    end, with the count of rows the lease keeper did not report while they landed."""
    experiment = chunk.experiment
    spec = experiment.target_spec
    streamed = _landed_rows(chunk, lease, todo, repeat)
    landing = {"landed": streamed.landed} if streamed else {}
    with calls_counted(chunk, lease, rows=len(todo) if spec.calls_are_rows else 0) as calls:
        try:
            outputs = spec.run_batch(
                experiment=experiment, items=todo, repeat=repeat, cancel=lease.stop, **landing
            )
        finally:
            if streamed:
                streamed.stop()
    unreported = len(todo) - calls.reported
    if streamed:
        streamed.finish()  # raises what a flush raised
        rows = []  # all written as they landed
    else:
        rows = [
            target_row(experiment=experiment, item=item, repeat=repeat, fields=out)
            for item, out in zip(todo, outputs, strict=True)
        ]
    _commit(chunk, lease, 0, lambda: _target_upsert(rows), targets=unreported)


def _landed_rows(chunk, lease, todo: list[ItemRow], repeat: int) -> LandedRows | None:
    """Rows written and scored by the range's code checks as they land (`streamed`), when the
    target hands them over and this worker also serves the code chunks' queue (a worker that
    does not would run their sandboxes where a deployment put only calls); else None."""
    experiment = chunk.experiment
    queues = worker_queues() or ()
    if not experiment.target_spec.streams_rows or ChunkKind.CODE not in queues:
        return None
    checks = _evaluator_work(chunk, lease, ChunkKind.CODE)
    if not checks.bindings:
        return None

    def flush(landed: list[tuple[int, dict]]) -> None:
        items = [todo[index] for index, _fields in landed]
        rows = [
            target_row(experiment=experiment, item=todo[index], repeat=repeat, fields=fields)
            for index, fields in landed
        ]
        _commit(chunk, lease, 0, lambda: _target_upsert(rows))
        checks(items, repeats=[repeat])

    return LandedRows(flush)


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
