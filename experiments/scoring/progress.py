"""Progress between commits: calls in flight, target rows answered, judge calls answered.

A target mini-batch (up to 2,000 rows) commits its rows once, when its last call returns, and an
LLM judge's mini-batch (up to 1,000 rows) once per repetition; in between, the runner counts
the calls of the run's slots in this process (`evaluators.llm.slots.slots_watched`: a slot held
is a call in flight, a slot given back a call finished) and the lease keeper reports the counts
every second, only when they moved — no write per row:

- a target batch (`TargetCalls`): the chunk's `calls_in_flight`, and the run's `targets_done`
  bumped by the rows answered (each call one row, for kinds whose calls are rows). The batch's
  commit adds the rows not reported yet; a batch rolled back leaves its reported rows counted
  until the run ends, when `finish` counts the target rows exactly.
- a judge chunk (`JudgeCalls`): the chunk's `calls_in_flight` and `calls_answered` (answered,
  not yet written), which each commit zeroes in its own transaction; pages add the running
  chunks' answered calls to the results written.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db.models import F
from django.utils import timezone

from evaluators.llm.slots import SlotWatch, slots_watched

from ..models import Experiment, ExperimentChunk, ExperimentStatus


class _Calls:
    """Counts of one chunk's calls that the keeper reports (`report`) until `close`."""

    def __init__(self, chunk_id: int, experiment_id: int, watch: SlotWatch) -> None:
        self.chunk_id, self.experiment_id, self.watch = chunk_id, experiment_id, watch
        self.base = watch.finished  # calls this process finished before (or before a commit)
        self.in_flight = 0  # the chunk's calls_in_flight as last written
        self.lock = threading.Lock()
        self.closed = False

    def answered(self) -> int:
        return max(0, self.watch.finished - self.base)

    def settle(self) -> None:
        """In a commit's transaction: what was answered is now written."""


class TargetCalls(_Calls):
    """A target batch: rows answered go straight into the run's targets_done."""

    def __init__(self, chunk_id, experiment_id, watch, rows: int) -> None:
        super().__init__(chunk_id, experiment_id, watch)
        self.rows = rows  # 0: calls are not rows (a simulated user's turns): rows at commit
        self.reported = 0  # rows added to the run's targets_done so far

    def report(self) -> None:
        """Write what moved since the last report (the keeper's thread). Under the lock, so
        `close` knows exactly what was reported (no transaction of the runner is open then)."""
        with self.lock:
            if self.closed:
                return
            in_flight = max(0, self.watch.in_flight)
            if in_flight != self.in_flight:
                _chunk_counts(self.chunk_id, calls_in_flight=in_flight)
                self.in_flight = in_flight
            fresh = min(self.answered(), self.rows) - self.reported
            if fresh > 0:
                targets_bump(self.experiment_id, fresh)
                self.reported += fresh

    def close(self) -> None:
        with self.lock:
            self.closed = True
            if self.in_flight:
                _chunk_counts(self.chunk_id, calls_in_flight=0)


class JudgeCalls(_Calls):
    """An LLM chunk: judge calls in flight and answered since the last commit, on the chunk."""

    def __init__(self, chunk_id, experiment_id, watch) -> None:
        super().__init__(chunk_id, experiment_id, watch)
        self.bound = 0  # the most results the current mini-batch writes
        self.shown = 0  # the chunk's calls_answered as last written
        self.recheck = False  # a commit zeroed the counts: write them again at the next report

    def batch(self, results: int) -> None:
        """A mini-batch starts that writes at most `results` results."""
        with self.lock:
            self.bound = results

    def report(self) -> None:
        """Write what moved (the keeper's thread); the writes happen outside the lock, as a
        commit holding the chunk's row may be waiting for `settle`."""
        with self.lock:
            if self.closed:
                return
            counts = (max(0, self.watch.in_flight), min(self.answered(), self.bound))
            moved = counts != (self.in_flight, self.shown) or self.recheck
            self.recheck = False
            grew = counts[1] > self.shown
            self.in_flight, self.shown = counts
        if moved:
            _chunk_counts(self.chunk_id, calls_in_flight=counts[0], calls_answered=counts[1])
        if grew:  # the ETA counts down from the last move
            running = Experiment.objects.filter(
                pk=self.experiment_id, status=ExperimentStatus.RUNNING
            )
            running.update(progressed_at=timezone.now())

    def settle(self) -> None:
        with self.lock:
            self.base, shown, self.shown = self.watch.finished, self.shown, 0
            # a report that read its counts before this may write them after our zero
            self.recheck = True
        if shown:
            _chunk_counts(self.chunk_id, calls_answered=0)

    def close(self) -> None:
        with self.lock:
            self.closed = True
            written = self.in_flight or self.shown or self.recheck
        if written:
            _chunk_counts(self.chunk_id, calls_in_flight=0, calls_answered=0)


def _chunk_counts(chunk_id: int, **counts) -> None:
    ExperimentChunk.objects.filter(pk=chunk_id).update(**counts)


def targets_bump(experiment_id: int, count: int) -> None:
    """`count` more target outputs, while the run runs (a finished run's count is exact)."""
    Experiment.objects.filter(pk=experiment_id, status=ExperimentStatus.RUNNING).update(
        targets_done=F("targets_done") + count, progressed_at=timezone.now()
    )


@contextmanager
def calls_counted(chunk, lease, *, rows: int) -> Iterator[TargetCalls]:
    """Count the run's target calls in this process while the block runs; the lease keeper
    reports them. `rows`: the mini-batch's rows when each finished call is one row, else 0."""
    key = f"experiment:{chunk.experiment.public_id}:target"
    with slots_watched(key) as watch:
        with _reported(lease, TargetCalls(chunk.pk, chunk.experiment_id, watch, rows)) as calls:
            yield calls


@contextmanager
def judge_calls_counted(chunk, lease) -> Iterator[JudgeCalls]:
    """Count an LLM chunk's judge calls in this process while the block runs."""
    key = f"experiment:{chunk.experiment.public_id}:judge"
    with slots_watched(key) as watch:
        with _reported(lease, JudgeCalls(chunk.pk, chunk.experiment_id, watch)) as calls:
            yield calls


@contextmanager
def _reported(lease, calls: _Calls) -> Iterator:
    lease.progress = calls
    try:
        yield calls
    finally:
        lease.progress = None
        calls.close()
