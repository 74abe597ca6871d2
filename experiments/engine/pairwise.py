"""Pairwise runs' work, on the experiments' engine: chunks claimed under a lease (the keeper
renews it and watches for cancel), fair dispatch on the llm queue beside experiments' chunks,
mini-batches that each commit with a lease check and a conditional progress bump, and the
last chunk completing the run once, with its statistics. Every status change is an event of
`lifecycle` (the same table of moves as experiments').

What a chunk does: for its range of item ids, every pair of the run's experiments (round robin:
each with each, the earlier one as A) on the items both have, judged by the run's pairwise
judge in both orders. Rows pair by item id, so the experiments may run on different versions
of the evalset. A pair whose output is missing on either side is a row too (skipped, unknown).
Every step is safe to run twice: a chunk judges only pairs without a result yet (in a retry
round: without a successful one) and upserts them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from assay.safety.caps import ANSWER_BYTES, ERROR_BYTES, MESSAGE_BYTES, cap_json, cap_text
from assay.vocabulary import RETRYABLE_STATUSES, ResultStatus
from evalsets.models import EvalSetItem
from evaluators.pairing import OUTPUT_A, OUTPUT_B, UNKNOWN, pair_verdict
from evaluators.runner import RunCancelled, RunOutcome, evaluator_run_batch

from ..mapping import build_turn
from ..models import (
    ChunkStatus,
    ExperimentStatus,
    PairwiseChunk,
    PairwiseResult,
    PairwiseRun,
    TargetResult,
)
from . import lifecycle
from .chunks import ChunkStopped
from .dispatch import chunks_dispatch
from .isolation import PAIRWISE, run_isolated
from .leases import ChunkLease

MINI_BATCH = 100  # pairs between cancel checks, progress bumps and writes (two calls each)
RESULT_UPDATE_FIELDS = (
    "status outcome position_inconsistent answer_ab answer_ba reason_ab reason_ba raw_ab raw_ba "
    "request_ab request_ba error input latency_ms tokens_in tokens_out cost cached attempt "
    "updated_at"
).split()

# judge(run=, turns=, repeat=, cancel=) → one RunOutcome per turn, in order
Judge = Callable[..., list[RunOutcome]]


# ----------------------------------------------------------------------------- the run


def pairwise_begin(*, run_id: int) -> list:
    """queued → running (or keep running); return the chunks dispatched now."""
    now = timezone.now()
    if not lifecycle.pairwise_move(run_id, "start", heartbeat_at=now):
        return []
    PairwiseRun.objects.filter(pk=run_id, started_at__isnull=True).update(started_at=now)
    if not _unfinished(run_id).exists():
        pairwise_finalize_if_done(run_id=run_id)
        return []
    return chunks_dispatch()


def _unfinished(run_id: int):
    return PairwiseChunk.objects.filter(run_id=run_id, status__in=lifecycle.UNFINISHED_CHUNKS)


def pairwise_finalize_if_done(*, run_id: int) -> bool:
    """The last chunk finalises: running → completed exactly once, with its statistics."""
    if _unfinished(run_id).exists():
        asked = PairwiseRun.objects.filter(
            pk=run_id, cancel_requested=True, status=ExperimentStatus.RUNNING
        ).exists()
        return asked and pairwise_settle_cancel(run_id=run_id)
    with transaction.atomic():  # nobody sees "completed" without its numbers
        now = timezone.now()
        claimed = lifecycle.pairwise_move(
            run_id, "complete", where=Q(cancel_requested=False), finished_at=now, heartbeat_at=now
        )
        if claimed:
            _settle(run_id)
    return claimed or pairwise_settle_cancel(run_id=run_id)


def pairwise_settle_cancel(*, run_id: int) -> bool:
    """End a run whose cancel was asked: → cancelled once, with its statistics so far."""
    with transaction.atomic():
        cancelled = lifecycle.pairwise_move(
            run_id, "cancel", where=Q(cancel_requested=True), finished_at=timezone.now()
        )
        if cancelled:
            _settle(run_id)
    return cancelled


def pairwise_fail(*, run_id: int, message: str) -> None:
    """→ failed (from queued or running), keeping every judged pair."""
    with transaction.atomic():
        failed = lifecycle.pairwise_move(
            run_id,
            "fail",
            finished_at=timezone.now(),
            error_message=cap_text(message, MESSAGE_BYTES),
        )
        if failed:
            _settle(run_id)


def _settle(run_id: int) -> None:
    """Counters bumped by concurrent chunks are exact once everything is written; the stored
    statistics are computed from the rows as they now are."""
    from ..pairwise.summary import pairwise_summary_refresh

    count = PairwiseResult.objects.filter(run_id=run_id).count()
    PairwiseRun.objects.filter(pk=run_id).update(results_done=count)
    pairwise_summary_refresh(run=PairwiseRun.objects.get(pk=run_id))


# ----------------------------------------------------------------------------- a chunk


def pairwise_chunk_claim(*, chunk_id: int) -> tuple[PairwiseChunk, uuid.UUID] | None:
    """Take a chunk under a fresh lease, or None when it is done or someone holds it."""
    token = lifecycle.pairwise_chunk_claim(chunk_id)
    if token is None:
        return None
    chunk = PairwiseChunk.objects.select_related("run__evaluator_version", "run__workspace")
    return chunk.get(pk=chunk_id), token


def pairwise_chunk_unclaimable_reason(*, chunk_id: int) -> str:
    """Why a delivered chunk was not taken (for the task's result and logs)."""
    status = PairwiseChunk.objects.filter(pk=chunk_id).values_list("status", flat=True).first()
    return {
        ChunkStatus.DONE: "already done",
        ChunkStatus.RUNNING: "held by another worker",
        None: "no such chunk",
    }.get(status, f"not claimable ({status})")


def pairwise_chunk_run(
    *, chunk: PairwiseChunk, token: uuid.UUID, keeper: bool = True, judge: Judge | None = None
) -> str:
    """Judge the chunk's missing pairs; 'done', 'cancelled', 'stopped' (lease lost) or 'skipped'.

    `judge` is the run's pairwise judge unless given (the demo's stored answers).
    """
    run = chunk.run
    if not lifecycle.accepts_work(run):
        lifecycle.pairwise_chunk_move(chunk.pk, "release", token=token)
        pairwise_settle_cancel(run_id=run.pk)
        return "cancelled" if run.cancel_requested else "skipped"
    with ChunkLease(chunk.pk, run.pk, token, keeper=keeper, pairwise=True) as lease:
        try:
            _work(chunk, lease, judge or judge_pairs)
        except (ChunkStopped, RunCancelled):
            lifecycle.pairwise_chunk_move(chunk.pk, "release", token=lease.token)
            settled = pairwise_settle_cancel(run_id=run.pk)
            return "cancelled" if settled or lease.reason == "cancelled" else "stopped"
    return "done"


def pairwise_chunk_complete(*, chunk: PairwiseChunk, token: uuid.UUID) -> list:
    """Mark done once (only by the lease holder), finish the run if it was the last chunk, and
    return the chunks dispatched next."""
    done = lifecycle.pairwise_chunk_move(chunk.pk, "done", token=token, finished_at=timezone.now())
    if not done:
        return []
    PairwiseRun.objects.filter(pk=chunk.run_id).update(chunks_done=F("chunks_done") + 1)
    pairwise_finalize_if_done(run_id=chunk.run_id)  # or settles a cancel that was asked
    return chunks_dispatch()


def pairwise_chunk_failed(*, chunk_id: int, message: str) -> None:
    """A chunk's task raised: the chunk and its run fail at once (judged pairs are kept)."""
    chunk = PairwiseChunk.objects.filter(pk=chunk_id).first()
    if chunk is None:
        return
    lifecycle.pairwise_chunk_move(chunk_id, "fail", error=cap_text(message, ERROR_BYTES))
    pairwise_fail(run_id=chunk.run_id, message=f"A chunk of work failed: {message}")


# ----------------------------------------------------------------------------- the work


@dataclass(frozen=True)
class Side:
    """One experiment's row for an item: the evalset row and its target output (None: the
    target produced none, `error` says why)."""

    item: EvalSetItem
    output: str | None
    error: str


def _work(chunk: PairwiseChunk, lease: ChunkLease, judge: Judge) -> None:
    run = chunk.run
    sides = chunk_sides(chunk)
    for repeat in range(run.repetitions):
        for a, b in run_pairs(run):
            todo = _missing(run, a, b, repeat, shared_items(sides, a, b))
            for start in range(0, len(todo), MINI_BATCH):
                if not lease.check():
                    raise ChunkStopped(lease.reason)
                batch = [(sides[a][uid], sides[b][uid]) for uid in todo[start : start + MINI_BATCH]]
                rows = judged_rows(
                    run=run, pair=(a, b), repeat=repeat, sides=batch, judge=judge, cancel=lease.stop
                )
                _commit(chunk, lease, rows)


def run_pairs(run: PairwiseRun) -> list[tuple[int, int]]:
    """Every pair of the run's experiments, in the run's order: (A, B) with A the earlier."""
    order = run.entries.order_by("position").values_list("experiment_id", flat=True)
    return list(combinations(order, 2))


def chunk_sides(chunk: PairwiseChunk) -> dict[int, dict[uuid.UUID, Side]]:
    """experiment id → item id → its Side, for the items of the chunk's range."""
    span = Q(item_id__gte=chunk.uid_from) & (Q(item_id__lt=chunk.uid_to) if chunk.uid_to else Q())
    sides = {}
    for entry in chunk.run.entries.select_related("experiment"):
        experiment = entry.experiment
        items = EvalSetItem.objects.filter(span, version_id=experiment.evalset_version_id).only(
            "id", "item_id", "position", "data", "tags"
        )
        sides[experiment.pk] = _sides(experiment, {item.pk: item for item in items})
    return sides


def _sides(experiment, items: dict[int, EvalSetItem]) -> dict[uuid.UUID, Side]:
    # an experiment's first repetition stands for it: its output is what the judge compares
    outputs = TargetResult.objects.filter(
        experiment=experiment, repeat=0, item_id__in=list(items)
    ).values_list("item_id", "status", "output", "error")
    found = {pk: (status, output, error) for pk, status, output, error in outputs}
    sides = {}
    for pk, item in items.items():
        status, output, error = found.get(pk, (None, None, "no output was produced"))
        ok = status == ResultStatus.SUCCESS
        sides[item.item_id] = Side(item, output if ok else None, "" if ok else error)
    return sides


def shared_items(sides, a: int, b: int) -> list[uuid.UUID]:
    """The item ids both experiments have, in A's row order."""
    shared = set(sides[a]) & set(sides[b])
    return sorted(shared, key=lambda uid: (sides[a][uid].item.position, str(uid)))


def _missing(run: PairwiseRun, a: int, b: int, repeat: int, uids: list) -> list:
    """Items of the pair without a result; in a retry round also those that errored."""
    have = PairwiseResult.objects.filter(
        run=run, experiment_a_id=a, experiment_b_id=b, repeat=repeat, item_uid__in=uids
    )
    if run.retry_round:
        have = have.exclude(status__in=RETRYABLE_STATUSES)
    done = set(have.values_list("item_uid", flat=True))
    return [uid for uid in uids if uid not in done]


def judge_pairs(*, run: PairwiseRun, turns: list[dict], repeat: int, cancel) -> list[RunOutcome]:
    """The run's pairwise judge on `turns` (both orders each), through the one batch runner."""
    version = run.evaluator_version
    return evaluator_run_batch(
        workspace=run.workspace,
        kind=version.kind,
        config=version.config,
        turns=turns,
        policy=version.default_policy,
        score_meaning=version.score_meaning,
        # a later repetition of the same pair must ask the judge again, not the cache
        version_key=f"evaluator-version:{version.public_id}" + (f":{repeat}" if repeat else ""),
        concurrency=run.concurrency,
        cancel=cancel,
        run_key=f"pairwise:{run.public_id}:judge",
    )


def judged_rows(*, run, pair, repeat: int, sides: list[tuple[Side, Side]], judge: Judge, cancel):
    """PairwiseResult rows for `sides` ((A's side, B's side) per item): pairs with both outputs
    go to `judge`, the rest are skipped with the missing side's reason."""
    fed, unfed = [], []
    for a, b in sides:
        (fed if a.output is not None and b.output is not None else unfed).append((a, b))
    turns = [pair_turn(run, a, b) for a, b in fed]
    outcomes = judge(run=run, turns=turns, repeat=repeat, cancel=cancel) if turns else []
    rows = [
        _row(run, pair, repeat, a.item, turn, outcome)
        for (a, _b), turn, outcome in zip(fed, turns, outcomes, strict=True)
    ]
    names = dict(run.entries.values_list("experiment_id", "experiment__name"))
    for a, b in unfed:
        missing = (pair[0], a) if a.output is None else (pair[1], b)
        error = f"no output from {names[missing[0]]}: {missing[1].error or 'none was produced'}"
        skipped = RunOutcome(status=ResultStatus.SKIPPED, error=error)
        rows.append(_row(run, pair, repeat, a.item, pair_turn(run, a, b), skipped))
    return rows


def pair_turn(run: PairwiseRun, a: Side, b: Side) -> dict:
    """The judge's turn: the mapped columns of A's row, and both outputs (a missing one left
    out)."""
    outputs = {OUTPUT_A: a.output, OUTPUT_B: b.output}
    return build_turn(mapping=run.mapping, data=a.item.data, target_outputs=outputs, ext={})


def _row(run, pair, repeat: int, item: EvalSetItem, turn: dict, outcome) -> PairwiseResult:
    """One stored pair; the outcome is folded again from the two stored answers, so row and
    answers can never disagree."""
    calls = outcome.extra.get("calls") or [{}, {}]
    ab, ba = calls[0], calls[1]
    answers = ab.get("verdict") or "", ba.get("verdict") or ""
    judged = outcome.status == ResultStatus.SUCCESS
    result, inconsistent = pair_verdict(*answers) if judged else (UNKNOWN, False)
    return PairwiseResult(
        run=run,
        item_id=item.pk,
        item_uid=item.item_id,
        experiment_a_id=pair[0],
        experiment_b_id=pair[1],
        repeat=repeat,
        position=item.position,
        tags=item.tags or [],
        status=outcome.status,
        outcome=result,
        position_inconsistent=inconsistent,
        answer_ab=answers[0],
        answer_ba=answers[1],
        reason_ab=cap_text(ab.get("reason") or "", ERROR_BYTES),
        reason_ba=cap_text(ba.get("reason") or "", ERROR_BYTES),
        raw_ab=_raw(ab),
        raw_ba=_raw(ba),
        request_ab=cap_json(ab.get("rendered_request")),
        request_ba=cap_json(ba.get("rendered_request")),
        error=cap_text(outcome.error, ERROR_BYTES),
        input=cap_json(turn),
        latency_ms=outcome.latency_ms,
        tokens_in=outcome.tokens_in,
        tokens_out=outcome.tokens_out,
        cost=outcome.cost,
        cached=outcome.cached,
        attempt=run.retry_round,
    )


def _raw(call: dict) -> str | None:
    raw = call.get("raw_answer")
    return None if raw is None else cap_text(raw, ANSWER_BYTES)


def _commit(chunk: PairwiseChunk, lease: ChunkLease, rows: list[PairwiseResult]) -> None:
    """Rows, lease check and progress bump in one transaction: a runner that lost its lease,
    or a run that was cancelled meanwhile, writes nothing (the rows roll back)."""
    with transaction.atomic():
        pairwise_results_upsert(rows=rows)
        if not lifecycle.pairwise_lease_renew(chunk.pk, lease.token):
            lease.reason = "lost"
            raise ChunkStopped("lost")
        if not lifecycle.pairwise_progress(chunk.run_id, len(rows)):
            lease.reason = "cancelled"
            raise ChunkStopped("the pairwise run is no longer running")


def pairwise_results_upsert(*, rows: list[PairwiseResult]) -> None:
    """Insert judged pairs, or update the row already there: two runners that both found a
    pair missing still leave exactly one."""
    PairwiseResult.objects.bulk_create(
        rows,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["run", "item_uid", "experiment_a", "experiment_b", "repeat"],
        update_fields=RESULT_UPDATE_FIELDS,
    )


# ----------------------------------------------------------------------------- in this process


def pairwise_run_inline(*, run_id: int, judge: Judge | None = None) -> PairwiseRun:
    """Run a launched pairwise run in this process, chunk by chunk, with the same steps as the
    tasks (the demo; operators). `judge` replaces the run's judge (the demo's stored answers)."""
    pairwise_begin(run_id=run_id)
    while (chunk := _next_inline_chunk(run_id)) is not None:
        claimed = pairwise_chunk_claim(chunk_id=chunk.pk)
        if claimed is None:
            break
        chunk, token = claimed
        if pairwise_chunk_run(chunk=chunk, token=token, keeper=False, judge=judge) != "done":
            break
        pairwise_chunk_complete(chunk=chunk, token=token)
    return PairwiseRun.objects.get(pk=run_id)


def _next_inline_chunk(run_id: int) -> PairwiseChunk | None:
    ready = PairwiseChunk.objects.filter(
        run_id=run_id, status__in=[ChunkStatus.PENDING, ChunkStatus.QUEUED]
    )
    return ready.order_by("index").first()


# ----------------------------------------------------------------------------- the reaper


def pairwise_reap(*, now, stale, reaped) -> None:
    """The reaper's pass over pairwise runs (`reaper.Reaped` collects what to send and start):
    revive chunks whose lease expired (their worker died), resend lost messages, restart lost
    starts and finish runs whose last step was interrupted; each run's step isolated (a run
    whose step raises is logged and failed, the pass goes on)."""
    expired = PairwiseChunk.objects.filter(status=ChunkStatus.RUNNING, lease_expires_at__lt=now)
    for chunk in expired:
        reaped.touched.add(chunk.run_id)
        run_isolated(PAIRWISE, chunk.run_id, _revive, chunk=chunk, now=now)
    lost = PairwiseChunk.objects.filter(
        status=ChunkStatus.QUEUED, queued_at__lt=stale, run__status=ExperimentStatus.RUNNING
    )
    for chunk in lost:
        if lifecycle.pairwise_chunk_move(
            chunk.pk, "resend", where=Q(queued_at__lt=stale), queued_at=now
        ):
            reaped.send.append(chunk)
            reaped.touched.add(chunk.run_id)
    _restart_lost_starts(now, stale, reaped)
    running = PairwiseRun.objects.filter(status=ExperimentStatus.RUNNING)
    for run_id in running.values_list("pk", flat=True):
        run_isolated(PAIRWISE, run_id, pairwise_finalize_if_done, run_id=run_id)


def _revive(*, chunk: PairwiseChunk, now) -> None:
    if chunk.attempts >= settings.ASSAY_CHUNK_MAX_ATTEMPTS:
        lifecycle.pairwise_chunk_move(chunk.pk, "fail", error="its worker died repeatedly")
        pairwise_fail(
            run_id=chunk.run_id,
            message="A chunk failed repeatedly (its worker "
            "died or it hung); the judged pairs are kept.",
        )
    else:
        lifecycle.pairwise_chunk_move(chunk.pk, "revive", where=Q(lease_expires_at__lt=now))


def _restart_lost_starts(now, stale, reaped) -> None:
    queued = PairwiseRun.objects.filter(status=ExperimentStatus.QUEUED, heartbeat_at__lt=stale)
    for run_id in queued.values_list("pk", flat=True):
        if PairwiseRun.objects.filter(pk=run_id, heartbeat_at__lt=stale).update(heartbeat_at=now):
            reaped.start_pairwise.append(run_id)
            reaped.touched.add(run_id)
