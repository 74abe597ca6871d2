"""Kinds of run: one interface, one registry.

A kind of run (an experiment scoring an evalset, a pairwise run judging experiments against
each other, …) says what its rows are and what its chunks do; the machine in this package —
states, leases, dispatch, the reaper, cancel, retry, inline runs, the tasks — is the same for
every kind and never names one. A kind registers itself (`run_kind_register`) from its own
module, imported by the app's `ready()`; a task message carries the kind's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from django.db import models


@dataclass(frozen=True)
class RetryPlan:
    """What a retry round does: how many rows run again (0: nothing to retry), and the run's
    counters as the round starts (fields for the `retry` move)."""

    count: int
    fields: dict
    answer: Any = None  # what the service returns to its caller


class RunKind:
    """The interface of a kind of run. Subclasses set the class attributes and implement
    `work`, `settle` and `retry_plan`; the rest has defaults every kind may keep."""

    name: ClassVar[str]  # the message's word for the kind ("experiment", "pairwise")
    noun: ClassVar[str]  # how logs and errors name one run ("experiment", "pairwise run")
    run_model: ClassVar[type[models.Model]]
    chunk_model: ClassVar[type[models.Model]]
    run_field: ClassVar[str]  # the chunk's foreign key to its run
    # queue → the values of the chunk model's `kind` column that go there; () when the chunk
    # model has no such column (every chunk of the kind goes to that one queue)
    queues: ClassVar[dict[str, tuple[str, ...]]]
    kept: ClassVar[str] = "the finished rows"  # what a failed run keeps, in its message
    claim_fresh: ClassVar[dict] = {}  # chunk counters a new lease starts again at 0
    claim_related: ClassVar[tuple[str, ...]] = ()  # what a claimed chunk's work reads with it
    inline_order: ClassVar[tuple[str, ...]] = ("index",)
    messages: ClassVar[
        dict[str, str]
    ] = {}  # cannot_cancel, not_finished, nothing_to_retry, changed

    # ------------------------------------------------------------------ what the kind does

    def work(self, chunk, lease, **options) -> None:
        """Do the chunk's missing work in mini-batches, each committed with `lease.commit`'s
        checks; raise `ChunkStopped` when the lease says stop."""
        raise NotImplementedError

    def settle(self, run_id: int) -> None:
        """What a finished run computes (its exact counters, its statistics), in the
        transaction that finishes it: nobody sees it finished without its numbers."""
        raise NotImplementedError

    def completed(self, run_id: int) -> None:
        """After a run completed (inside its transaction; schedule heavy work on commit)."""

    def chunk_done(self, chunk) -> set[str]:
        """After a chunk moved to done: the queues whose places it freed or filled (a kind
        whose chunks wait on others unblocks them here)."""
        return {self.queue_of(chunk)}

    def retry_plan(self, run) -> RetryPlan:
        """How many rows a retry round runs again and the run's counters for it."""
        raise NotImplementedError

    def chunks_reset(self, run) -> None:
        """Every chunk back to its first state, for a retry round."""
        from . import lifecycle

        lifecycle.chunks_reset(self, run)

    # ------------------------------------------------------------------ derived

    def queue_of(self, chunk) -> str:
        """The broker queue a chunk's message goes to."""
        for queue, values in self.queues.items():
            if not values or chunk.kind in values:
                return queue
        raise ValueError(f"{self.name} chunk {chunk.pk} of kind {chunk.kind!r} has no queue")

    def chunk_label(self, value: str | None = None) -> str:
        """The dispatcher's sort word for a chunk (its kind column, or the run kind's name)."""
        return str(value) if value is not None else self.name

    @property
    def has_chunk_kinds(self) -> bool:
        return any(self.queues.values())

    def run_id_of(self, chunk) -> int:
        return getattr(chunk, f"{self.run_field}_id")

    def run_of(self, chunk):
        return getattr(chunk, self.run_field)

    def __repr__(self) -> str:
        return f"<run kind {self.name}>"


_KINDS: dict[str, RunKind] = {}


def run_kind_register(kind: RunKind) -> RunKind:
    """Register a kind of run (once per name; registering it again returns the first)."""
    return _KINDS.setdefault(kind.name, kind)


def run_kind_get(name: str) -> RunKind:
    """The registered kind of that name."""
    try:
        return _KINDS[name]
    except KeyError:
        raise ValueError(f"unknown kind of run {name!r}") from None


def run_kinds() -> list[RunKind]:
    """Every registered kind, in the order they registered (dispatch's tie-break)."""
    return list(_KINDS.values())


def run_kind_of(obj) -> RunKind:
    """The kind whose run or chunk model `obj` (an instance or a model) is."""
    model = obj if isinstance(obj, type) else type(obj)
    for kind in _KINDS.values():
        if issubclass(model, (kind.run_model, kind.chunk_model)):
            return kind
    raise ValueError(f"{model.__name__} is no registered kind's run or chunk")


def run_kind_unregister(name: str) -> None:
    """Drop a kind (tests that register a kind of their own)."""
    _KINDS.pop(name, None)
