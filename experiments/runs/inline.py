"""Running a launched run of any kind in this process (demo data, operators' --inline)."""

from __future__ import annotations

from .bases import ChunkStatus
from .chunks import chunk_claim, chunk_complete, chunk_run, run_begin
from .kinds import RunKind


def run_inline(kind: RunKind, *, run_id: int, **options):
    """Run a launched run in this process, chunk by chunk (demo data, operators' --inline).

    Uses the same begin/claim/run/complete steps as the tasks, so the result is identical; it
    takes its own run's chunks in order instead of waiting for dispatch. `options` go to the
    kind's work (the pairwise demo's stored answers).
    """
    run_begin(kind, run_id=run_id)
    while (chunk := _next_inline_chunk(kind, run_id)) is not None:
        claimed = chunk_claim(kind, chunk_id=chunk.pk)
        if claimed is None:
            break
        chunk, token = claimed
        if chunk_run(chunk=chunk, token=token, keeper=False, **options) != "done":
            break
        chunk_complete(chunk=chunk, token=token)
    return kind.run_model.objects.get(pk=run_id)


def _next_inline_chunk(kind: RunKind, run_id: int):
    ready = kind.chunk_model.objects.filter(
        **{f"{kind.run_field}_id": run_id},
        status__in=[ChunkStatus.PENDING, ChunkStatus.QUEUED],
    )
    return ready.order_by(*kind.inline_order).first()
