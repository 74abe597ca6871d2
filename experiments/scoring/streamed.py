"""A target batch's rows, written and scored while its other calls are still in flight.

A range's code chunk waits for its target chunk, then reads the target's outputs and scores
them: one more step on the run's path after the last answer (0.1 s for 1,000 rows: the code
chunk's claim and reads, the sandbox, the write). When the target hands over each row as it
lands (`TargetSpec.streams_rows`) and this worker also serves the code queue, the target
chunk gives the landed rows to a `LandedRows`: a thread that every FLUSH_S writes the rows
landed since and scores them with the range's code checks, as the code chunk would, in the
same lease-checked transactions. After the last answer only the last moments' rows remain;
the code chunk then finds nothing missing. A crash loses at most unwritten rows, which the
chunks compute again (every write is an idempotent upsert).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connections

# Between flushes: each starts a sandbox batch (~20 ms), so a few a second, not one a row.
FLUSH_S = 0.5


class LandedRows:
    """Rows (index, fields) handed over by a batch's event loop (`landed`), flushed by a
    thread of their own (`flush(rows)`) every FLUSH_S and once more after `finish`."""

    def __init__(self, flush: Callable[[list[tuple[int, dict]]], None]) -> None:
        self.flush = flush
        self.pending: list[tuple[int, dict]] = []
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="landed-rows", daemon=True)
        self.thread.start()

    def landed(self, index: int, fields: dict) -> None:
        """A row is ready (called on the batch's event loop: only appends)."""
        with self.lock:
            self.pending.append((index, fields))

    def finish(self) -> None:
        """After the batch: flush what is left, wait for it, and raise what a flush raised."""
        self.stop()
        if self.error is not None:
            raise self.error

    def stop(self) -> None:
        """End the thread after its last flush (also when the batch itself failed)."""
        self.done.set()
        self.thread.join()

    def _run(self) -> None:
        try:
            while True:
                last = self.done.wait(FLUSH_S)
                with self.lock:
                    rows, self.pending = self.pending, []
                if rows:
                    self.flush(rows)
                if last:
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the chunk's thread
            self.error = exc
        finally:
            connections.close_all()  # this thread's own connections
