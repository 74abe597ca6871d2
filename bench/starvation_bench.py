"""Starvation benchmark: how long a small run of one workspace waits behind another
workspace's runaway runs, with real worker processes (beat on, as deployed).

    python bench/starvation_bench.py [--small-rows 12] [--runaway-rows 2000]
        [--chunk-size 100] [--row-loops 1000000] [--workers 2] [--rounds 3]

The small run (a quick code check on `--small-rows` rows) is launched alone, then again while
workspace A runs two runaway runs of a code check that counts to `--row-loops` a row (about
0.05 s on an idle core; chunks of `--chunk-size` rows, so one of A's chunks holds a pool process
for about 5 s). For
each it prints launch -> first result and launch -> completed (median of `--rounds`), and how
many of A's chunks started between the small run's launch and its own chunk's start. Uses
DATABASE_URL's server with a scratch database (BENCH_DB, default `assay_starvation`), else
SQLite, and a private redis-server, so no other worker consumes its messages; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BENCH_DB", "assay_starvation")

from bench.support import scratch_environment  # noqa: E402

# The sandbox allows no sleep: a row of the runaways' check counts for about 0.05 s.
SLOW_ROW = """def exec_evaluation(turn):
    total = 0
    for i in range({loops}):
        total += i
    return EvalOutput(score=1.0, reason="slow")
"""


def main() -> None:
    args = parse_args()
    worker, redis = start_platform(args.workers)
    try:
        print(f"load average at the start: {load()}")
        scenario = Scenario(args)
        alone = [scenario.small_run() for _ in range(args.rounds)]
        report("alone", alone)
        loaded = []
        for _ in range(args.rounds):
            runaways = scenario.runaways()
            loaded.append(scenario.small_run(behind=runaways))
            scenario.cancel(runaways)
        report("behind A's two runaway runs", loaded)
        print(f"load average at the end: {load()}")
    finally:
        worker.stop()
        redis.kill()


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small-rows", type=int, default=12)
    parser.add_argument("--runaway-rows", type=int, default=2000)
    parser.add_argument("--chunk-size", type=int, default=100)
    parser.add_argument("--row-loops", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--rounds", type=int, default=3)
    return parser.parse_args()


def start_platform(concurrency: int):
    """Django migrated on a scratch database, a private redis-server and a worker with beat."""
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-bench-")
    database = scratch_environment()
    from tests.support.processes import RedisServer, Worker

    redis = RedisServer().start()
    os.environ["REDIS_URL"] = redis.url
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    db_url = database or f"sqlite:///{os.environ['ASSAY_DATA_DIR']}/assay.sqlite3"
    worker = Worker(database_url=db_url, redis_url=redis.url, beat=True, concurrency=concurrency)
    worker.start()
    time.sleep(4)  # let the worker connect and fork its pool
    print(f"database: {'PostgreSQL' if database else 'SQLite'}; worker concurrency {concurrency}")
    return worker, redis


class Scenario:
    """Workspace A with a slow check on a big evalset, workspace B with a quick one."""

    def __init__(self, args) -> None:
        from assay import services as platform
        from tests.support.factories import make_code_version, make_evalset_version, qa_rows

        self.args = args
        alice = platform.user_create(username="alice", password="bench-pass-1234")
        bob = platform.user_create(username="bob", password="bench-pass-1234")
        self.a = (platform.workspace_create(name="A", slug="a", owner=alice), alice)
        self.b = (platform.workspace_create(name="B", slug="b", owner=bob), bob)
        source = SLOW_ROW.format(loops=args.row_loops)
        self.slow = make_code_version(workspace=self.a[0], user=alice, name="Slow", source=source)
        rows = qa_rows(args.runaway_rows)
        self.big = make_evalset_version(workspace=self.a[0], user=alice, rows=rows)
        self.quick = make_code_version(workspace=self.b[0], user=bob, name="Quick")
        rows = qa_rows(args.small_rows)
        self.small = make_evalset_version(workspace=self.b[0], user=bob, rows=rows, name="Small")
        self.count = 0

    def launch(self, owner, version, check, **options):
        from experiments import services

        self.count += 1
        workspace, user = owner
        experiment = services.experiment_create(
            workspace=workspace,
            user=user,
            name=f"run {self.count}",
            evalset_version=version,
            bindings=[{"evaluator_version": check}],
            **options,
        )
        return services.experiment_launch(experiment=experiment)

    def runaways(self) -> list:
        """A's two runaway runs, once their chunks hold the pool."""
        from experiments.models import Result

        size = self.args.chunk_size
        runs = [self.launch(self.a, self.big, self.slow, chunk_size=size) for _ in range(2)]
        wait(lambda: Result.objects.filter(experiment__in=runs).exists(), "A's first result")
        return runs

    def small_run(self, behind=()) -> tuple[float, float, int]:
        """(launch -> first result, launch -> completed, A's chunks started in between)."""
        from experiments.models import Experiment, ExperimentChunk, Result

        began = time.monotonic()
        run = self.launch(self.b, self.small, self.quick)
        wait(lambda: Result.objects.filter(experiment=run).exists(), "the small run's result")
        first = time.monotonic() - began
        wait(lambda: Experiment.objects.get(pk=run.pk).status == "completed", "completed")
        done = time.monotonic() - began
        launched = Experiment.objects.get(pk=run.pk).queued_at
        started = ExperimentChunk.objects.filter(experiment=run).order_by("claimed_at")[0]
        ahead = ExperimentChunk.objects.filter(
            experiment__in=behind, claimed_at__gt=launched, claimed_at__lt=started.claimed_at
        ).count()
        return first, done, ahead

    def cancel(self, runs) -> None:
        from experiments import services
        from experiments.models import Experiment

        for run in runs:
            services.experiment_cancel(experiment=Experiment.objects.get(pk=run.pk))
        active = Experiment.objects.filter(pk__in=[r.pk for r in runs], status="running")
        wait(lambda: not active.exists(), "the runaways' cancel")


def wait(predicate, what: str, timeout: float = 900.0, poll_s: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(poll_s)
    raise SystemExit(f"timed out waiting for {what}")


def report(label: str, rounds: list[tuple[float, float, int]]) -> None:
    firsts, dones, aheads = zip(*rounds, strict=True)
    print(
        f"small run {label}: launch -> first result {median(list(firsts)):.2f} s,"
        f" launch -> completed {median(list(dones)):.2f} s (median of {len(rounds)};"
        f" each: {', '.join(f'{f:.2f}/{d:.2f}' for f, d, _ in rounds)});"
        f" A's chunks started before its own: {list(aheads)}"
    )


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


if __name__ == "__main__":
    main()
