"""Experiment tasks: thin wrappers that take ids and call services or the run engine.

The run engine's tasks (`runs.tasks`: start a run, run a chunk, the reaper) are registered by
importing them here, where the workers look for an app's tasks. The per-kind names below take
the messages the version before kinds of run sent (still in a broker when it is deployed);
remove them a release later.
"""

from __future__ import annotations

from celery import shared_task

from .runs.tasks import ChunkTask, enqueue_chunks, reap_stale, run_chunk, run_start

__all__ = ["enqueue_chunks", "reap_stale", "run_chunk", "run_start"]


def _start_of(name: str, kind: str):
    @shared_task(name=f"experiments.tasks.{name}", acks_late=True)
    def start(run_id: int) -> int:
        return run_start(run_id, kind)

    start.__doc__ = f"A {kind} start message of the version before: `run_start`."
    return start


def _chunk_of(name: str, kind: str):
    options = {"base": ChunkTask, "run_kind": kind, "reject_on_worker_lost": True}

    @shared_task(name=f"experiments.tasks.{name}", acks_late=True, **options)
    def chunk(chunk_id: int) -> str:
        return run_chunk(chunk_id, kind)

    chunk.__doc__ = f"A {kind} chunk message of the version before: `run_chunk`."
    return chunk


experiment_start = _start_of("experiment_start", "experiment")
chunk_run = _chunk_of("chunk_run", "experiment")
pairwise_start = _start_of("pairwise_start", "pairwise")
pairwise_chunk_run = _chunk_of("pairwise_chunk_run", "pairwise")


@shared_task(name="experiments.tasks.garak_import_run")
def garak_import_run(job_id: int) -> str:
    """Import a queued garak report, probe by probe. Safe to deliver twice: only the claim's
    winner runs it, and a job claimed again goes on from its first probe not imported."""
    from . import services

    job = services.garak_import_claim(job_id=job_id)
    if job is None:
        return "skipped"
    return services.garak_import_run(job=job).status
