"""The machine every kind of run shares: chunks worked under leases, fair dispatch, one state
machine, the reaper, cancel and retry. It names no kind of run: a kind (`kinds.RunKind`:
experiments in `experiments.scoring`, pairwise runs in `experiments.pairwise.work`) registers
itself and this package works on whatever is registered.

- `kinds`: the interface and the registry.
- `bases`: the states, and abstract models with the fields the machine reads and writes.
- `lifecycle`: every status change, each one conditional UPDATE, from one table of events.
- `chunks`: begin a run, claim a chunk, run the kind's work, commit a mini-batch, complete.
- `leases`: the keeper that renews leases and watches for cancel.
- `dispatch` (`dispatch_sql` on PostgreSQL): which pending chunks get a broker message next.
- `finish`: completed, cancelled or failed, with the kind's numbers settled.
- `reaper`: revive dead chunks, resend lost messages, restart lost starts.
- `isolation`: each run's step of a periodic pass on its own (one run's fault fails that run).
- `inline`: the same steps in this process.
- `services`: cancel and retry-failed, for every kind.
- `tasks`: one start, one chunk and one reaper task; the message names the kind.
"""

from .chunks import (
    ChunkStopped,
    batch_commit,
    chunk_claim,
    chunk_complete,
    chunk_failed,
    chunk_finished,
    chunk_run,
    chunk_unclaimable_reason,
    run_begin,
)
from .dispatch import chunks_dispatch
from .finish import run_fail, run_finalize_if_done, run_settle_cancel
from .inline import run_inline
from .kinds import RetryPlan, RunKind, run_kind_get, run_kind_of, run_kind_register, run_kinds
from .reaper import Reaped, runs_reap

__all__ = [
    "ChunkStopped",
    "Reaped",
    "RetryPlan",
    "RunKind",
    "batch_commit",
    "chunk_claim",
    "chunk_complete",
    "chunk_failed",
    "chunk_finished",
    "chunk_run",
    "chunk_unclaimable_reason",
    "chunks_dispatch",
    "run_begin",
    "run_fail",
    "run_finalize_if_done",
    "run_inline",
    "run_kind_get",
    "run_kind_of",
    "run_kind_register",
    "run_kinds",
    "run_settle_cancel",
    "runs_reap",
]
