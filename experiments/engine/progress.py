"""A target chunk's progress between its commits: calls in flight and rows answered.

A target mini-batch (up to 2,000 rows) commits its rows once, when its last call returns; in
between, its runner counts the calls of the run's target key in this process
(`evaluators.llm.slots.slots_watched`: a slot held is a call in flight, a slot given back a
call finished) and the lease keeper reports the counts every second — one UPDATE of the chunk
(calls in flight) and one of the run (rows answered), only when they moved — so a page shows
the target's rows land one by one at no cost per row. The mini-batch's commit then adds the
rows it wrote that were not reported yet; a batch rolled back leaves its reported rows counted
until the run ends, when `finish` counts the target rows exactly.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.db.models import F
from django.utils import timezone

from evaluators.llm.slots import SlotWatch, slots_watched

from ..models import Experiment, ExperimentChunk, ExperimentStatus


class CallProgress:
    """One target mini-batch's calls, as the keeper reports them (`report`, every tick) and
    its commit settles them (`unreported`)."""

    def __init__(self, chunk_id: int, experiment_id: int, watch: SlotWatch, rows: int) -> None:
        self.chunk_id, self.experiment_id, self.watch = chunk_id, experiment_id, watch
        self.rows = rows  # 0: calls are not rows (a simulated user's turns): rows at commit
        self.base = watch.finished  # calls this process finished before the batch
        self.reported = 0  # rows added to the run's targets_done so far
        self.in_flight = 0  # the chunk's calls_in_flight as last written
        self.lock = threading.Lock()
        self.closed = False

    def report(self) -> None:
        """Write what moved since the last report (the keeper's thread)."""
        with self.lock:
            if self.closed:
                return
            in_flight = max(0, self.watch.in_flight)
            answered = min(self.watch.finished - self.base, self.rows) - self.reported
            if in_flight != self.in_flight:
                ExperimentChunk.objects.filter(pk=self.chunk_id).update(calls_in_flight=in_flight)
                self.in_flight = in_flight
            if answered > 0:
                targets_bump(self.experiment_id, answered)
                self.reported += answered

    def close(self) -> int:
        """Stop reporting; the rows reported so far (the commit adds the rest)."""
        with self.lock:
            self.closed = True
            if self.in_flight:
                ExperimentChunk.objects.filter(pk=self.chunk_id).update(calls_in_flight=0)
            return self.reported


def targets_bump(experiment_id: int, count: int) -> None:
    """`count` more target outputs, while the run runs (a finished run's count is exact)."""
    Experiment.objects.filter(pk=experiment_id, status=ExperimentStatus.RUNNING).update(
        targets_done=F("targets_done") + count, progressed_at=timezone.now()
    )


@contextmanager
def calls_counted(chunk, lease, *, rows: int) -> Iterator[CallProgress]:
    """Count the run's target calls in this process while the block runs; the lease keeper
    reports them. `rows`: the mini-batch's rows when each finished call is one row, else 0."""
    key = f"experiment:{chunk.experiment.public_id}:target"
    with slots_watched(key) as watch:
        progress = CallProgress(chunk.pk, chunk.experiment_id, watch, rows)
        lease.progress = progress
        try:
            yield progress
        finally:
            lease.progress = None
            progress.close()
