"""A running chunk's lease: renewed on a timer while the chunk works, watched for cancel.

The keeper is a thread beside the chunk's work. Every second it looks at the experiment's
cancel flag; every sixth of the lease it renews the lease. When either says stop — cancel was
asked, or the lease was taken over (the reaper revived the chunk, so another runner owns it) —
it sets `stop`, which the sandbox and the LLM batch watch: the sandbox child is killed and
calls in flight are dropped within a fraction of a second. Writes check the lease again in
their own transaction, so a superseded runner never writes.
"""

from __future__ import annotations

import threading
import uuid

from django.db import close_old_connections, connection

from . import lifecycle
from .models import Experiment

TICK_S = 1.0


class ChunkLease:
    """The lease one runner holds on one chunk (a context manager that runs the keeper)."""

    def __init__(self, chunk_id: int, experiment_id: int, token: uuid.UUID, *, keeper=True):
        self.chunk_id, self.experiment_id, self.token = chunk_id, experiment_id, token
        self.stop = threading.Event()
        self.reason = ""
        self._keeper = keeper
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ChunkLease:
        if self._keeper:
            self._thread = threading.Thread(target=self._keep, name="chunk-lease", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def check(self) -> bool:
        """Between mini-batches: True while the chunk may go on (the inline runner's keeper)."""
        if not self._keeper:
            self._look(renew=True)
        return not self.stop.is_set()

    def _keep(self) -> None:
        ticks = 0
        renew_every = max(1, int(lifecycle.lease_seconds() / 6 / TICK_S))
        try:
            while not self._done.wait(TICK_S) and not self.stop.is_set():
                ticks += 1
                self._look(renew=ticks % renew_every == 0)
        finally:
            connection.close()  # this thread's own connection

    def _look(self, *, renew: bool) -> None:
        try:
            if _cancel_requested(self.experiment_id):
                self._halt("cancelled")
            elif renew and not lifecycle.lease_renew(self.chunk_id, self.token):
                self._halt("lost")
        except Exception:  # a failed check is retried next tick; the write check still holds
            close_old_connections()

    def _halt(self, reason: str) -> None:
        self.reason = reason
        self.stop.set()


def _cancel_requested(experiment_id: int) -> bool:
    return Experiment.objects.filter(pk=experiment_id, cancel_requested=True).exists()
