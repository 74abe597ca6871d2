"""Experiment tasks: thin wrappers that take ids, claim rows and call the engine."""

from __future__ import annotations

import logging

from celery import Task, shared_task
from celery.exceptions import WorkerLostError
from celery.signals import worker_process_init

from evaluators.runner import runtimes_warm_up

from . import engine
from .engine.dispatch import QUEUE, chunks_dispatch
from .models import PairwiseChunk

log = logging.getLogger(__name__)


def enqueue_chunks(chunks) -> None:
    """Each chunk goes to the queue of its work: code → code, judges and targets → llm.

    A message that cannot be sent (broker down) leaves its chunk queued; the reaper sends it
    again once it has waited `ASSAY_EXPERIMENT_STALE_S`.
    """
    for chunk in chunks:
        task = pairwise_chunk_run if chunk.kind == PairwiseChunk.kind else chunk_run
        try:
            task.apply_async(args=[chunk.pk], queue=QUEUE[chunk.kind])
        except Exception:  # noqa: BLE001 - the row is the truth; the reaper resends
            log.warning("could not send chunk %s; the reaper will resend it", chunk.pk)


@worker_process_init.connect
def _warm_up(**_kwargs) -> None:
    """A pool process starts its sandbox before its first chunk (not during it)."""
    runtimes_warm_up()


class ChunkTask(Task):
    """A chunk whose task raised fails at once (its experiment with it), not after a timeout."""

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        if isinstance(exc, WorkerLostError):
            return  # the process died: the lease expires and the reaper revives the chunk
        engine.chunk_failed(chunk_id=args[0], message=f"{type(exc).__name__}: {exc}")


@shared_task(name="experiments.tasks.experiment_start", acks_late=True)
def experiment_start(experiment_id: int) -> int:
    """queued → running and dispatch the chunks that can start. Safe to run twice."""
    chunks = engine.experiment_begin(experiment_id=experiment_id)
    enqueue_chunks(chunks)
    return len(chunks)


@shared_task(
    name="experiments.tasks.chunk_run", base=ChunkTask, acks_late=True, reject_on_worker_lost=True
)
def chunk_run(chunk_id: int) -> str:
    """Claim a chunk under a lease, do what is missing, mark it done; safe to deliver twice."""
    claimed = engine.chunk_claim(chunk_id=chunk_id)
    if claimed is None:
        return engine.chunk_unclaimable_reason(chunk_id=chunk_id)
    chunk, token = claimed
    enqueue_chunks(chunks_dispatch([QUEUE[chunk.kind]]))  # this claim freed a place in the broker
    outcome = engine.chunk_run(chunk=chunk, token=token)
    if outcome == "done":
        enqueue_chunks(engine.chunk_complete(chunk=chunk, token=token))
    else:
        enqueue_chunks(chunks_dispatch())
    return outcome


@shared_task(name="experiments.tasks.reap_stale")
def reap_stale() -> int:
    """Beat task: revive dead chunks, resend lost messages, restart lost starts, dispatch."""
    reaped = engine.experiments_reap()
    for experiment_id in reaped.start:
        experiment_start.delay(experiment_id)
    for run_id in reaped.start_pairwise:
        pairwise_start.delay(run_id)
    enqueue_chunks(reaped.send)
    return len(reaped.touched)


class PairwiseChunkTask(Task):
    """A pairwise chunk whose task raised fails at once (its run with it), as ChunkTask."""

    def on_failure(self, exc, task_id, args, kwargs, einfo):
        if isinstance(exc, WorkerLostError):
            return  # the process died: the lease expires and the reaper revives the chunk
        engine.pairwise_chunk_failed(chunk_id=args[0], message=f"{type(exc).__name__}: {exc}")


@shared_task(name="experiments.tasks.pairwise_start", acks_late=True)
def pairwise_start(run_id: int) -> int:
    """queued → running for a pairwise run and dispatch its chunks. Safe to run twice."""
    chunks = engine.pairwise_begin(run_id=run_id)
    enqueue_chunks(chunks)
    return len(chunks)


@shared_task(
    name="experiments.tasks.pairwise_chunk_run",
    base=PairwiseChunkTask,
    acks_late=True,
    reject_on_worker_lost=True,
)
def pairwise_chunk_run(chunk_id: int) -> str:
    """Claim a pairwise chunk under a lease, judge its missing pairs (both orders each), mark it
    done; safe to deliver twice (a second delivery backs off or finds nothing missing)."""
    claimed = engine.pairwise_chunk_claim(chunk_id=chunk_id)
    if claimed is None:
        return engine.pairwise_chunk_unclaimable_reason(chunk_id=chunk_id)
    chunk, token = claimed
    enqueue_chunks(chunks_dispatch([QUEUE[chunk.kind]]))  # this claim freed a place in the broker
    outcome = engine.pairwise_chunk_run(chunk=chunk, token=token)
    if outcome == "done":
        enqueue_chunks(engine.pairwise_chunk_complete(chunk=chunk, token=token))
    else:
        enqueue_chunks(chunks_dispatch())
    return outcome


@shared_task(name="experiments.tasks.garak_import_run")
def garak_import_run(job_id: int) -> str:
    """Import a queued garak report, probe by probe. Safe to deliver twice: only the claim's
    winner runs it, and a job claimed again goes on from its first probe not imported."""
    from . import services

    job = services.garak_import_claim(job_id=job_id)
    if job is None:
        return "skipped"
    return services.garak_import_run(job=job).status
