"""A running chunk's lease: renewed on a timer while the chunk works, watched for cancel.

One keeper thread per process looks after every lease the process holds. Every second it looks
at each chunk's cancel flag (and reports a target batch's calls, `progress`); every sixth of
the lease it renews the lease. When either says
stop — cancel was asked, or the lease was taken over (the reaper revived the chunk, so another
runner owns it) — it sets the lease's `stop` event, which the sandbox and the LLM batch watch:
the sandbox child is killed and calls in flight are dropped within a fraction of a second.
Writes check the lease again in their own transaction, so a superseded runner never writes.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid

from django.db import close_old_connections, connections

from . import lifecycle

log = logging.getLogger(__name__)
TICK_S = 1.0


class ChunkLease:
    """The lease one runner holds on one chunk of a run of `kind` (a context manager: the
    keeper watches it)."""

    def __init__(self, kind, chunk_id: int, run_id: int, token: uuid.UUID, *, keeper=True):
        self.kind, self.chunk_id, self.run_id, self.token = kind, chunk_id, run_id, token
        self.stop = threading.Event()
        self.reason = ""
        self.ticks = 0
        self.progress = None  # a batch's calls, reported every tick (the kind's own counts)
        self._keeper = keeper

    def __enter__(self) -> ChunkLease:
        if self._keeper:
            _keeper().watch(self)
        return self

    def __exit__(self, *exc) -> None:
        if self._keeper:
            _keeper().forget(self)

    def check(self) -> bool:
        """Between mini-batches: True while the chunk may go on (the inline runner's keeper)."""
        if not self._keeper:
            self.look(renew=True)
        return not self.stop.is_set()

    def look(self, *, renew: bool) -> None:
        """Stop on a cancel or a lost lease; renew the lease when asked."""
        if _cancel_requested(self.kind.run_model, self.run_id):
            self._halt("cancelled")
        elif renew and not lifecycle.lease_renew(self.kind, self.chunk_id, self.token):
            self._halt("lost")

    def _halt(self, reason: str) -> None:
        self.reason = reason
        self.stop.set()


class _Keeper:
    """The process's keeper thread and the leases it watches (started on first use, and again
    in a forked worker child, which does not inherit threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.leases: set[ChunkLease] = set()
        self.pid = os.getpid()
        self.thread = threading.Thread(target=self._run, name="chunk-leases", daemon=True)
        self.thread.start()

    def watch(self, lease: ChunkLease) -> None:
        with self.lock:
            self.leases.add(lease)

    def forget(self, lease: ChunkLease) -> None:
        with self.lock:
            self.leases.discard(lease)

    def _run(self) -> None:
        renew_every = max(1, int(lifecycle.lease_seconds() / 6 / TICK_S))
        while True:
            time.sleep(TICK_S)
            with self.lock:
                leases = [lease for lease in self.leases if not lease.stop.is_set()]
            if not leases:
                connections.close_all()  # idle: hold no connection (this thread's only)
            for lease in leases:
                lease.ticks += 1
                try:
                    lease.look(renew=lease.ticks % renew_every == 0)
                    if (progress := lease.progress) is not None:
                        progress.report()
                except Exception:  # retried next tick; the write check still holds meanwhile
                    log.warning("lease check of chunk %s failed", lease.chunk_id, exc_info=True)
                    close_old_connections()


_KEEPER: _Keeper | None = None
_KEEPER_LOCK = threading.Lock()


def _keeper() -> _Keeper:
    global _KEEPER
    with _KEEPER_LOCK:
        if _KEEPER is None or _KEEPER.pid != os.getpid():
            _KEEPER = _Keeper()
        return _KEEPER


def _cancel_requested(model, run_id: int) -> bool:
    return model.objects.filter(pk=run_id, cancel_requested=True).exists()
