"""`Pusher`: a run's outputs pushed from a thread of their own, in batches, while the task is
still computing the next ones."""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

BATCH_SIZE = 100
LINGER_S = 1.0


_END = object()


class Pusher:
    """Pushes outputs from a thread of its own as they come, in batches of at most `size`:
    a batch leaves when it is full or when its first output has waited `linger` seconds.

    `add` never waits for the network; a failed push is raised by the next `add` (so the
    run stops) or by `finish`.
    """

    def __init__(
        self,
        push: Callable[[list[dict]], Any],
        *,
        size: int = BATCH_SIZE,
        linger: float = LINGER_S,
        on_added: Callable[[int], None] | None = None,
        observe: Callable[[dict], None] | None = None,
    ):
        self.push, self.size, self.linger, self.on_added = push, size, linger, on_added
        self.observe = observe
        self.added = 0
        self.error: BaseException | None = None
        self._queue: queue.Queue = queue.Queue()
        self._dropping = False
        self._thread = threading.Thread(target=self._loop, name="assay-push", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def add(self, entry: dict) -> None:
        """Queue one output (from the thread that runs the tasks)."""
        if self.error is not None:
            raise self.error
        if self.observe is not None:
            self.observe(entry)
        self._queue.put(entry)
        self.added += 1
        if self.on_added is not None:
            self.on_added(self.added)

    def finish(self) -> None:
        """Push what is left and wait for it; raise a push's error."""
        self._queue.put(_END)
        self._thread.join()
        if self.error is not None:
            raise self.error

    def stop(self) -> None:
        """Give up: what is queued is dropped."""
        self._dropping = True
        self._queue.put(_END)
        self._thread.join(timeout=30)

    def _loop(self) -> None:
        batch: list[dict] = []
        due = 0.0
        while True:
            wait_s = max(0.0, due - time.monotonic()) if batch else None
            try:
                entry = self._queue.get(timeout=wait_s)
            except queue.Empty:
                entry = None
            if entry is _END:
                if batch and not self._dropping:
                    self._send(batch)
                return
            if entry is not None:
                if not batch:
                    due = time.monotonic() + self.linger
                batch.append(entry)
            if batch and (entry is None or len(batch) >= self.size):
                if not self._send(batch):
                    return
                batch = []

    def _send(self, batch: list[dict]) -> bool:
        if self._dropping or self.error is not None:
            return False
        try:
            self.push(batch)
        except BaseException as exc:
            self.error = exc
            return False
        return True
