"""The tasks of every kind of run: thin wrappers that take ids, claim rows and call the engine.
A message names the kind of run (`kinds.run_kind_get`); the task never asks which it is.

Their names are in `experiments.tasks.*`, the namespace the settings route and the beat
schedule use (`experiments/tasks.py` registers them with the workers).
"""

from __future__ import annotations

import gc
import logging

from celery import Task, shared_task
from celery.exceptions import WorkerLostError
from celery.signals import worker_process_init

from evaluators.runner import runtimes_warm_up

from .chunks import (
    chunk_claim,
    chunk_complete,
    chunk_failed,
    chunk_unclaimable_reason,
    run_begin,
)
from .chunks import chunk_run as chunk_work
from .dispatch import chunks_dispatch
from .kinds import run_kind_get, run_kind_of
from .reaper import runs_reap

log = logging.getLogger(__name__)


def enqueue_chunks(chunks) -> None:
    """Each chunk goes to the queue of its work (its kind says which: code → code, judges and
    targets → llm), its message naming its kind of run.

    A message that cannot be sent (broker down) leaves its chunk queued; the reaper sends it
    again once it has waited `ASSAY_EXPERIMENT_STALE_S`.
    """
    for chunk in chunks:
        kind = run_kind_of(chunk)
        try:
            run_chunk.apply_async(args=[chunk.pk, kind.name], queue=kind.queue_of(chunk))
        except Exception:  # noqa: BLE001 - the row is the truth; the reaper resends
            log.warning("could not send chunk %s; the reaper will resend it", chunk.pk)


def run_start_send(kind, run_id: int) -> None:
    """Send a run's start message (after the transaction that launched it commits)."""
    run_start.delay(run_id, kind.name)


@worker_process_init.connect
def _warm_up(**_kwargs) -> None:
    """A pool process loads, before its first chunk, what it would otherwise load inside it
    or inside its first run's finishing transaction: its evaluators' runtimes
    (`runtimes_warm_up`: the sandbox, the judges' client stack) and the URL map (a run's end
    event links to its page; the first `reverse` imports every urlconf, 0.5 s). Then all it
    loaded is frozen out of the garbage collector: full collections scanned this whole heap,
    0.1-0.2 s each, inside chunks (a judge chunk's renders took 0.17 s instead of 0.03 s)."""
    from django.urls import get_resolver

    runtimes_warm_up()
    get_resolver().reverse_dict  # noqa: B018 - populates the resolver's reverse map
    gc.freeze()


class ChunkTask(Task):
    """A chunk whose task raised fails at once (its run with it), not after a timeout."""

    run_kind = ""  # a task whose messages carry no kind of run names it here

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        if isinstance(exc, WorkerLostError):
            return  # the process died: the lease expires and the reaper revives the chunk
        kind = run_kind_get(args[1] if len(args) > 1 else kwargs.get("kind", self.run_kind))
        chunk_failed(kind, chunk_id=args[0], message=f"{type(exc).__name__}: {exc}")


@shared_task(name="experiments.tasks.run_start", acks_late=True)
def run_start(run_id: int, kind: str) -> int:
    """queued → running and dispatch the chunks that can start. Safe to run twice."""
    chunks = run_begin(run_kind_get(kind), run_id=run_id)
    enqueue_chunks(chunks)
    return len(chunks)


@shared_task(
    name="experiments.tasks.run_chunk", base=ChunkTask, acks_late=True, reject_on_worker_lost=True
)
def run_chunk(chunk_id: int, kind: str) -> str:
    """Claim a chunk under a lease, do what is missing, mark it done; safe to deliver twice."""
    run_kind = run_kind_get(kind)
    claimed = chunk_claim(run_kind, chunk_id=chunk_id)
    if claimed is None:
        return chunk_unclaimable_reason(run_kind, chunk_id=chunk_id)
    chunk, token = claimed
    # this claim freed a place in the broker
    enqueue_chunks(chunks_dispatch([run_kind.queue_of(chunk)]))
    outcome = chunk_work(chunk=chunk, token=token)
    if outcome == "done":
        enqueue_chunks(chunk_complete(chunk=chunk, token=token))
    else:
        enqueue_chunks(chunks_dispatch())
    return outcome


@shared_task(name="experiments.tasks.reap_stale")
def reap_stale() -> int:
    """Beat task: revive dead chunks, resend lost messages, restart lost starts, dispatch."""
    reaped = runs_reap()
    for kind, run_id in reaped.start:
        run_start_send(kind, run_id)
    enqueue_chunks(reaped.send)
    return len(reaped.touched)
