"""The run engine: chunks worked under leases, fair dispatch, one state machine, the reaper.

- `chunks`: claim, run what is missing, commit each mini-batch with its checks, complete.
- `lifecycle`: every status change, each one conditional UPDATE.
- `leases`: the keeper that renews leases and watches for cancel.
- `dispatch`: which pending chunks get a broker message next (round-robin across workspaces).
- `finish`: completed, cancelled or failed, with the numbers settled.
- `reaper`: revive dead chunks, resend lost messages, restart lost starts.
- `isolation`: each run's step of a periodic pass on its own (one run's fault fails that run).
- `inline`: the same steps in this process.
- `pairwise`: pairwise runs' chunks on the same pieces (and their reaper pass and inline run).

Tasks and services call the functions re-exported here.
"""

from .chunks import (
    MINI_BATCH,
    ChunkStopped,
    chunk_claim,
    chunk_complete,
    chunk_failed,
    chunk_run,
    chunk_unclaimable_reason,
    experiment_begin,
    results_upsert,
)
from .dispatch import chunks_dispatch
from .finish import experiment_fail, experiment_finalize_if_done, experiment_settle_cancel
from .inline import experiment_run_inline
from .pairwise import (
    pairwise_begin,
    pairwise_chunk_claim,
    pairwise_chunk_complete,
    pairwise_chunk_failed,
    pairwise_chunk_run,
    pairwise_chunk_unclaimable_reason,
    pairwise_finalize_if_done,
    pairwise_run_inline,
    pairwise_settle_cancel,
)
from .reaper import Reaped, experiments_reap

__all__ = [
    "MINI_BATCH",
    "ChunkStopped",
    "Reaped",
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
    "pairwise_begin",
    "pairwise_chunk_claim",
    "pairwise_chunk_complete",
    "pairwise_chunk_failed",
    "pairwise_chunk_run",
    "pairwise_chunk_unclaimable_reason",
    "pairwise_finalize_if_done",
    "pairwise_run_inline",
    "pairwise_settle_cancel",
    "results_upsert",
]
