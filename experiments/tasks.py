"""Experiment tasks: thin wrappers that take ids, claim rows and call the engine."""

from __future__ import annotations

from celery import shared_task

from . import engine
from .models import ChunkKind

QUEUE = {ChunkKind.TARGET: "llm", ChunkKind.LLM: "llm", ChunkKind.CODE: "code"}


def enqueue_chunks(chunks) -> None:
    """Each chunk goes to the queue of its work: code → code, judges and targets → llm."""
    for chunk in chunks:
        chunk_run.apply_async(args=[chunk.pk], queue=QUEUE[chunk.kind])


@shared_task(name="experiments.tasks.experiment_start", acks_late=True)
def experiment_start(experiment_id: int) -> int:
    """queued → running and fan out the chunks that can start. Safe to run twice."""
    chunks = engine.experiment_begin(experiment_id)
    enqueue_chunks(chunks)
    return len(chunks)


@shared_task(name="experiments.tasks.chunk_run", acks_late=True, reject_on_worker_lost=True)
def chunk_run(chunk_id: int) -> str:
    """Claim a chunk, do what is missing, mark it done; a redelivered chunk resumes."""
    chunk = engine.chunk_claim(chunk_id)
    if chunk is None:
        return "already done"
    outcome = engine.chunk_run(chunk)
    if outcome == "done":
        enqueue_chunks(engine.chunk_complete(chunk))
    return outcome


@shared_task(name="experiments.tasks.reap_stale")
def reap_stale() -> int:
    """Beat task: runs whose heartbeat stopped get their unfinished chunks enqueued again."""
    stale = engine.stale_experiments()
    for experiment_id in stale:
        experiment_start.delay(experiment_id)
    return len(stale)
