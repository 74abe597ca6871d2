"""The experiment kind of run (`kind.EXPERIMENT`, registered with `experiments.runs`): what an
experiment's chunk does, on the machine every kind shares.

- `kind`: the kind — its models, queues, what a finished run settles, what a retry runs again.
- `chunks`: a chunk's rows, run through the target or the evaluators in mini-batches.
- `evaluator_work`, `per_turn`: which rows each binding still lacks, scored per row or turn.
- `turns`: the turns evaluators receive (and rebuilt for pages from what is stored).
- `writes`: results and target rows upserted (COPY on PostgreSQL).
- `progress`: calls in flight and answered between commits.
- `pushed`: outputs a client pushes (external targets).

The names below are the experiment's entry points into the machine (tasks and services use
`experiments.runs` directly); each only names the kind.
"""

from ..runs import ChunkStopped, chunks_dispatch, runs_reap
from ..runs import chunks as _chunks
from ..runs import finish as _finish
from ..runs.inline import run_inline
from .chunks import MINI_BATCH, results_upsert
from .kind import EXPERIMENT

experiments_reap = runs_reap


def experiment_begin(*, experiment_id: int) -> list:
    return _chunks.run_begin(EXPERIMENT, run_id=experiment_id)


def experiment_run_inline(*, experiment_id: int):
    return run_inline(EXPERIMENT, run_id=experiment_id)


def experiment_finalize_if_done(*, experiment_id: int) -> bool:
    return _finish.run_finalize_if_done(EXPERIMENT, run_id=experiment_id)


def experiment_settle_cancel(*, experiment_id: int) -> bool:
    return _finish.run_settle_cancel(EXPERIMENT, run_id=experiment_id)


def experiment_fail(*, experiment_id: int, message: str) -> None:
    _finish.run_fail(EXPERIMENT, run_id=experiment_id, message=message)


def chunk_claim(*, chunk_id: int):
    return _chunks.chunk_claim(EXPERIMENT, chunk_id=chunk_id)


def chunk_unclaimable_reason(*, chunk_id: int) -> str:
    return _chunks.chunk_unclaimable_reason(EXPERIMENT, chunk_id=chunk_id)


def chunk_failed(*, chunk_id: int, message: str) -> None:
    _chunks.chunk_failed(EXPERIMENT, chunk_id=chunk_id, message=message)


chunk_run = _chunks.chunk_run
chunk_complete = _chunks.chunk_complete

__all__ = [
    "EXPERIMENT",
    "MINI_BATCH",
    "ChunkStopped",
    "chunk_claim",
    "chunk_complete",
    "chunk_failed",
    "chunk_run",
    "chunk_unclaimable_reason",
    "chunks_dispatch",
    "experiment_begin",
    "experiment_fail",
    "experiment_finalize_if_done",
    "experiment_run_inline",
    "experiment_settle_cancel",
    "experiments_reap",
    "results_upsert",
]
