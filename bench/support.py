"""What the benchmarks share: a scratch database, Django set up on it, a real worker process,
and the peak memory of a process tree. Never the developer's own database."""

from __future__ import annotations

import os
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path


def scratch_database() -> str:
    """A fresh database on DATABASE_URL's PostgreSQL server ('' without one): `assay_bench`,
    or BENCH_DB's name so that two benchmarks on one server do not drop each other's."""
    base = os.environ.get("DATABASE_URL", "")
    name = os.environ.get("BENCH_DB", "assay_bench")
    if not name.replace("_", "").isalnum():
        raise SystemExit(f"BENCH_DB must be a plain name, got {name!r}")
    if base.startswith("postgres"):
        import psycopg

        admin = base.rsplit("/", 1)[0] + "/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            conn.execute(f"CREATE DATABASE {name}")
        return base.rsplit("/", 1)[0] + f"/{name}"
    return ""


def scratch_environment() -> str:
    """Point this process (and the processes it starts) at the scratch database, or, without a
    PostgreSQL server, at SQLite in ASSAY_DATA_DIR (set it first), and at Assay's settings; the
    database URL ('' for SQLite). Every bench that builds its own data starts here."""
    database = scratch_database()
    if database:
        os.environ["DATABASE_URL"] = database
    else:
        os.environ.pop("DATABASE_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    return database


@contextmanager
def platform_with_worker(*, concurrency: int):
    """Django on a scratch database (else a temporary SQLite file), migrated, with REDIS_URL
    (else a private redis-server) and a real Celery worker of `concurrency` processes, which
    is yielded. Prints which database it is."""
    data_dir = tempfile.mkdtemp(prefix="assay-bench-")
    os.environ["ASSAY_DATA_DIR"] = data_dir
    database = scratch_environment()
    from tests.support.processes import RedisServer, Worker

    redis = None
    if not os.environ.get("REDIS_URL"):
        redis = RedisServer().start()
        os.environ["REDIS_URL"] = redis.url
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    db_url = database or f"sqlite:///{data_dir}/assay.sqlite3"
    worker = Worker(
        database_url=db_url, redis_url=os.environ["REDIS_URL"], concurrency=concurrency
    ).start()
    try:
        time.sleep(3)  # let the worker connect and fork its pool
        kind = "PostgreSQL" if database else "SQLite"
        print(f"database: {kind}; worker concurrency {concurrency}")
        yield worker
    finally:
        worker.stop()
        if redis:
            redis.kill()


def token_client(*, workspace, user):
    """An API test client that sends a new token of ``user`` in ``workspace``."""
    from rest_framework.test import APIClient

    from assay import services as platform

    client = APIClient()
    key = platform.token_issue(workspace=workspace, user=user, name="bench").key
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def peak_rss_mb(pid: int) -> float:
    """The largest peak resident set (VmHWM) among a process and its children."""
    return max(_hwm_kb(candidate) for candidate in [pid, *children(pid)]) / 1024


def own_peak_rss_mb() -> float:
    """This process's resident high-water mark (VmHWM) in MB (without its children)."""
    return _hwm_kb("self") / 1024


def _hwm_kb(pid) -> int:
    """A process's VmHWM in kB; 0 for a process that has gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_peak_rss() -> float:
    """Reset this process's high-water mark to its current RSS (so a peak read later covers
    only what ran since) and return that RSS in MB."""
    Path("/proc/self/clear_refs").write_text("5")
    return own_peak_rss_mb()


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def launch_and_wait(client, body: dict, *, poll_s: float = 0.02):
    """POST the experiment `body` through the API (launch: true) and wait until it ends:
    (seconds from the request to completed or failed, the experiment)."""
    from experiments.models import Experiment, ExperimentStatus

    observer_quiet()
    started = time.perf_counter()
    response = client.post("/api/v1/experiments/", body, format="json")
    if response.status_code not in (201, 202):
        raise SystemExit(f"launch failed: {response.status_code} {response.content[:500]}")
    experiment = Experiment.objects.get(public_id=response.json()["id"])
    while experiment.status not in (ExperimentStatus.COMPLETED, ExperimentStatus.FAILED):
        time.sleep(poll_s)
        experiment.refresh_from_db(fields=["status"])
    return time.perf_counter() - started, experiment


def observer_quiet() -> None:
    """Freeze this (measuring) process's heap out of the garbage collector before a timed run:
    a full collection of it took 0.1 s, and one that fell on a poll delayed the moment the
    benchmark saw its run complete. The run itself is the worker's; nothing in it changes."""
    import gc

    gc.collect()
    gc.freeze()


def insert_columns(model, given: dict[str, str]) -> tuple[str, str]:
    """(column list, SELECT list) of an INSERT … SELECT into `model`'s table: every column but
    the key, the given SQL expression (by column), else the field's default as SQL (so a bench
    runs on a tree whose model has a column more or less)."""
    names, values = [], []
    for field in model._meta.concrete_fields:
        if field.primary_key:
            continue
        names.append(field.column)
        values.append(given.get(field.column) or _sql_default(field))
    return ", ".join(names), ", ".join(values)


def _sql_default(field) -> str:
    from django.db import models

    if isinstance(field, models.DateTimeField):
        return "now()"
    if field.null:
        return "NULL"
    if isinstance(field, models.JSONField):
        return "'[]'::jsonb" if field.default is list else "'{}'::jsonb"
    if isinstance(field, models.BooleanField):
        return "false"
    if isinstance(field, models.CharField | models.TextField):
        return "''"
    return "0"


def median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def tree_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) used so far by a process and every live descendant."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for candidate in [pid, *_descendants(pid)]:
        try:
            fields = Path(f"/proc/{candidate}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def _descendants(pid: int) -> list[int]:
    found = []
    for child in children(pid):
        found += [child, *_descendants(child)]
    return found


def chunks_in_process(experiment):
    """Every chunk of a launched `experiment` worked in this process as the chunk task does
    it (claim, dispatch, run under its lease, complete), under cProfile on this thread's CPU
    clock (time the thread waits is not counted): (profiler, wall seconds)."""
    import cProfile

    from experiments import scoring as engine
    from experiments.models import ExperimentChunk

    engine.experiment_begin(experiment_id=experiment.pk)
    profiler = cProfile.Profile(time.thread_time)
    started = time.perf_counter()
    chunks = ExperimentChunk.objects.filter(experiment=experiment).values_list(
        "pk", "index", "kind"
    )
    # a range's target chunk first: its evaluator chunks wait for it
    for chunk_id, _index, _kind in sorted(chunks, key=lambda c: (c[1], c[2] != "target")):
        profiler.enable()
        chunk, token = engine.chunk_claim(chunk_id=chunk_id)
        engine.chunks_dispatch()
        outcome = engine.chunk_run(chunk=chunk, token=token)
        engine.chunk_complete(chunk=chunk, token=token)
        profiler.disable()
        if outcome != "done":
            raise SystemExit(f"chunk {chunk_id} ended {outcome}")
    return profiler, time.perf_counter() - started


def print_phases(profiler, phases: dict[str, list[tuple[str, str]]], rows: int) -> None:
    """The profiled thread's CPU split by phase: each phase is the cumulative time of its
    (file suffix, function) entries; 'other' is the rest (the event loop, asyncio, glue).
    Profiling slows every call, so the shares say more than the absolute figures."""
    import pstats

    stats = pstats.Stats(profiler).stats
    total = sum(tottime for _cc, _calls, tottime, _cum, _callers in stats.values())
    spent = {}
    for phase, entries in phases.items():
        spent[phase] = sum(
            cumulative
            for (file, _line, name), (_cc, _calls, _tt, cumulative, _callers) in stats.items()
            if any(file.endswith(suffix) and name == wanted for suffix, wanted in entries)
        )
    spent["other (event loop, asyncio, glue)"] = total - sum(spent.values())
    print(f"  {'all':48} {1000 * total / rows:7.3f} ms a row (profiled)")
    for phase, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {phase:48} {1000 * seconds / rows:7.3f} ms a row {seconds / total:6.1%}")


def run_phases(experiment, elapsed: float) -> str:
    """Where a run's launch → completed went, from its own timestamps: the launch request,
    the wait for the start task, the wait for the first chunk's claim, the chunks (to the
    last one finished) and the finish (counters, aggregates, the completed claim, the poll)."""
    from django.db.models import Max, Min

    experiment.refresh_from_db()
    chunks = experiment.chunks.aggregate(first=Min("claimed_at"), last=Max("finished_at"))
    marks = [
        experiment.created_at,
        experiment.queued_at,
        experiment.started_at,
        chunks["first"],
        chunks["last"],
    ]
    if None in marks:
        return "phases: not all timestamps were set"
    spans = [(b - a).total_seconds() for a, b in zip(marks, marks[1:], strict=False)]
    spans.append(elapsed - (marks[-1] - marks[0]).total_seconds())
    names = ("launch request", "start", "first claim", "chunks", "finish")
    return "phases: " + ", ".join(f"{n} {s:.2f} s" for n, s in zip(names, spans, strict=True))


def run_timeline(experiment, first_call: float | None, last_answer: float | None) -> str:
    """Each chunk's claim and finish, the server's first request and last answer and the
    run's end, in seconds after the launch: what the run did before its first call and
    after its last answer (wall-clock times of this machine)."""
    experiment.refresh_from_db()
    start = experiment.created_at.timestamp()
    chunks = experiment.chunks.order_by("claimed_at")
    marks = [
        f"{getattr(c, 'kind', 'chunk')} {c.index}: {c.claimed_at.timestamp() - start:.2f}–"
        f"{c.finished_at.timestamp() - start:.2f}"
        for c in chunks
        if c.claimed_at and c.finished_at
    ]
    if first_call is not None and last_answer is not None:
        marks.append(f"calls {first_call - start:.2f}–{last_answer - start:.2f}")
    if experiment.finished_at:
        marks.append(f"completed {experiment.finished_at.timestamp() - start:.2f}")
    return "timeline (s after launch): " + ", ".join(marks)


# The engine's phases every pipeline profile splits out (file suffix, function; their
# cumulative times do not overlap).
ENGINE_PHASES = {
    "claim, dispatch, complete": [
        ("experiments/runs/chunks.py", "chunk_claim"),
        ("experiments/runs/dispatch.py", "chunks_dispatch"),
        ("experiments/runs/chunks.py", "chunk_complete"),
    ],
    "rows read": [("experiments/scoring/chunks.py", "_chunk_items")],
}
