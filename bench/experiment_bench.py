"""Experiment pipeline benchmark: launch through the API, chunks through a real worker process,
results in the database, aggregates finalised — for 2,000 and 20,000 rows.

Run as `python bench/experiment_bench.py` (uses DATABASE_URL's server with a scratch database
`assay_bench`, else a temporary SQLite file; REDIS_URL, else a private redis-server). Prints
rows/second and the worker's peak memory; asserts nothing. Target: 20,000 rows in under 5 s.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.support import launch_and_wait, peak_rss_mb, platform_with_worker  # noqa: E402

SIZES = [int(n) for n in os.environ.get("BENCH_ROWS", "2000,20000").split(",")]


def main() -> None:
    with platform_with_worker(concurrency=2) as worker:
        for size in SIZES:
            run(size, worker)


def run(size: int, worker) -> None:
    from assay import services as platform
    from bench.support import token_client
    from experiments.models import Result
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    user = platform.user_create(username=f"bench{size}", password="bench-password-1")
    workspace = platform.workspace_create(name=f"Bench {size}", owner=user)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(size))
    ev = make_code_version(workspace=workspace, user=user)
    client = token_client(workspace=workspace, user=user)
    body = {
        "name": f"bench {size}",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": str(ev.public_id)}],
        "launch": True,
    }
    # Warm the bench's own process (URLconf and API imports on the first request) so the
    # timing below measures the pipeline, not this process's cold start.
    client.get("/api/v1/experiments/")
    elapsed, experiment = launch_and_wait(client, body)
    experiment.refresh_from_db()
    count = Result.objects.filter(experiment=experiment).count()
    print(
        f"{size:>7,} rows: {experiment.status} in {elapsed:6.2f} s "
        f"= {size / elapsed:8,.0f} rows/s; results {count:,}; "
        f"aggregate: {experiment.aggregates.get().summary['line']}; "
        f"worker peak RSS {peak_rss_mb(worker.process.pid):.0f} MB"
    )


if __name__ == "__main__":
    main()
