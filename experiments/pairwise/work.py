"""The pairwise kind of run (`PAIRWISE`, registered with `experiments.runs`): its chunks are
claimed under a lease, dispatched on the llm queue beside experiments' chunks, commit each
mini-batch with a lease check and a conditional progress bump, and the last chunk completes
the run once, with its statistics — all of it the machine every kind shares; this module says
only what a chunk does and what a finished run computes.

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
from functools import partial
from itertools import combinations

from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from assay.safety.caps import ANSWER_BYTES, ERROR_BYTES, cap_json, cap_text
from assay.vocabulary import RETRYABLE_STATUSES, ResultStatus
from evalsets.models import EvalSetItem
from evaluators.pairing import OUTPUT_A, OUTPUT_B, UNKNOWN, pair_verdict
from evaluators.runner import RunOutcome, version_run_batch

from ..mapping import build_turn
from ..models import PairwiseChunk, PairwiseResult, PairwiseRun, TargetResult
from ..runs import chunks as _chunks
from ..runs import finish as _finish
from ..runs.chunks import ChunkStopped, batch_commit
from ..runs.inline import run_inline
from ..runs.kinds import RetryPlan, RunKind, run_kind_register
from ..runs.leases import ChunkLease

MINI_BATCH = 100  # pairs between cancel checks, progress bumps and writes (two calls each)
RESULT_UPDATE_FIELDS = (
    "status outcome position_inconsistent answer_ab answer_ba reason_ab reason_ba raw_ab raw_ba "
    "request_ab request_ba error input latency_ms tokens_in tokens_out cost cached attempt "
    "updated_at"
).split()

# judge(run=, turns=, repeat=, cancel=) → one RunOutcome per turn, in order
Judge = Callable[..., list[RunOutcome]]


# ----------------------------------------------------------------------------- the kind


class PairwiseRuns(RunKind):
    name = "pairwise"
    noun = "pairwise run"
    run_model = PairwiseRun
    chunk_model = PairwiseChunk
    run_field = "run"
    queues = {"llm": ()}  # a pairwise judge's calls are IO-bound, as every judge's are
    kept = "the judged pairs"
    claim_related = ("run__evaluator_version", "run__workspace")
    messages = {
        "cannot_cancel": _("A %(status)s pairwise run cannot be cancelled."),
        "not_finished": _("Retry once the pairwise run has finished."),
        "nothing_to_retry": _("There are no failed pairs to retry."),
        "changed": _("The pairwise run changed meanwhile; reload it."),
    }

    def work(self, chunk, lease, *, judge: Judge | None = None) -> None:
        """`judge` is the run's pairwise judge unless given (the demo's stored answers)."""
        _work(chunk, lease, judge or judge_pairs)

    def settle(self, run_id: int) -> None:
        """Counters bumped by concurrent chunks are exact once everything is written; the
        stored statistics are computed from the rows as they now are."""
        from .summary import pairwise_summary_refresh

        count = PairwiseResult.objects.filter(run_id=run_id).count()
        PairwiseRun.objects.filter(pk=run_id).update(results_done=count)
        pairwise_summary_refresh(run=PairwiseRun.objects.get(pk=run_id))

    def retry_plan(self, run) -> RetryPlan:
        """The pairs that errored or timed out (and any never written) are judged again;
        pairs skipped for a missing output stay as they are."""
        failed = run.results.filter(status__in=RETRYABLE_STATUSES).count()
        missing = max(run.results_total - run.results.count(), 0)
        fields = {"results_done": F("results_done") - failed}
        return RetryPlan(count=failed + missing, fields=fields, answer=failed + missing)


PAIRWISE = run_kind_register(PairwiseRuns())


# the pairwise kind's entry points into the machine (the demo, operators, tests)
pairwise_begin = partial(_chunks.run_begin, PAIRWISE)
pairwise_run_inline = partial(run_inline, PAIRWISE)  # judge=: the demo's stored answers
pairwise_finalize_if_done = partial(_finish.run_finalize_if_done, PAIRWISE)
pairwise_settle_cancel = partial(_finish.run_settle_cancel, PAIRWISE)
pairwise_chunk_claim = partial(_chunks.chunk_claim, PAIRWISE)
pairwise_chunk_unclaimable_reason = partial(_chunks.chunk_unclaimable_reason, PAIRWISE)
pairwise_chunk_failed = partial(_chunks.chunk_failed, PAIRWISE)
pairwise_chunk_run = _chunks.chunk_run
pairwise_chunk_complete = _chunks.chunk_complete


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
    return version_run_batch(
        version=run.evaluator_version,
        workspace=run.workspace,
        turns=turns,
        repeat=repeat,
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
    """Rows, lease check and progress bump in one transaction (`runs.batch_commit`)."""
    batch_commit(lease, len(rows), lambda: pairwise_results_upsert(rows=rows))


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
