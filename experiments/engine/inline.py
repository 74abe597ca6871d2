"""Running a launched experiment in this process (demo data, operators' --inline)."""

from __future__ import annotations

from ..models import ChunkStatus, Experiment, ExperimentChunk
from .chunks import chunk_claim, chunk_complete, chunk_run, experiment_begin


def experiment_run_inline(*, experiment_id: int) -> Experiment:
    """Run a launched experiment in this process, chunk by chunk (demo data, operators' --inline).

    Uses the same begin/claim/run/complete steps as the tasks, so the result is identical; it
    takes its own experiment's chunks in order instead of waiting for dispatch.
    """
    experiment_begin(experiment_id=experiment_id)
    while (chunk := _next_inline_chunk(experiment_id)) is not None:
        claimed = chunk_claim(chunk_id=chunk.pk)
        if claimed is None:
            break
        chunk, token = claimed
        if chunk_run(chunk=chunk, token=token, keeper=False) != "done":
            break
        chunk_complete(chunk=chunk, token=token)
    return Experiment.objects.get(pk=experiment_id)


def _next_inline_chunk(experiment_id: int) -> ExperimentChunk | None:
    ready = ExperimentChunk.objects.filter(
        experiment_id=experiment_id, status__in=[ChunkStatus.PENDING, ChunkStatus.QUEUED]
    )
    return ready.order_by("index", "kind").first()
