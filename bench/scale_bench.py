"""Scale benchmark: one experiment of BENCH_ROWS rows launched through the API and run by real
Celery workers on PostgreSQL — launch-to-completed time, rows/s, every worker's peak memory,
the web (this) process's memory, and bytes per result in PostgreSQL (results table with its
indexes and TOAST, divided by the rows).

    BENCH_ROWS=20000,1000000   sizes, each in a fresh scratch database (default 20000)
    BENCH_NODES=2              Celery nodes, each its own process tree with a distinct
                               hostname (default 1), to see throughput add up
    BENCH_CONCURRENCY=2        processes per node (the default worker's)
    BENCH_THREE=1              three evaluators: two Python code checks and an LLM judge
                               against a local scripted server answering in 50 ms; prints the
                               experiment's configured concurrency and the most requests the
                               server saw in flight at once
    BENCH_RUNS=2               launch that many runs one after the other on the same version:
                               from the second on, a completion also stores the first views'
                               numbers (trends' flips, the comparison with the run before) in
                               the worker; waits for them and prints the worker peak after
    BENCH_PROFILE=4            no workers: this process runs 4 chunks of the run itself under
                               cProfile (as a worker does: claim, dispatch, work, complete)
                               and prints rows/s, queries and where the time went;
                               BENCH_FILL=900 first marks 900 chunks done with their results
                               written by SQL, to see what grows with the run's size

Prints figures; asserts nothing. Needs DATABASE_URL (PostgreSQL; a scratch database, BENCH_DB)
and redis-server on the PATH (a private one: a shared Redis's other consumers take tasks).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.support import (  # noqa: E402
    launch_and_wait,
    own_peak_rss_mb,
    peak_rss_mb,
    reset_peak_rss,
    scratch_database,
    token_client,
)

SIZES = [int(n) for n in os.environ.get("BENCH_ROWS", "20000").split(",")]
NODES = int(os.environ.get("BENCH_NODES", "1"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "2"))
THREE = os.environ.get("BENCH_THREE") == "1"
PROFILE = int(os.environ.get("BENCH_PROFILE", "0"))
FILL = int(os.environ.get("BENCH_FILL", "0"))
RUNS = int(os.environ.get("BENCH_RUNS", "1"))
JUDGE_LATENCY_S = 0.05
JUDGE_CONCURRENCY = 16


def main() -> None:
    from tests.support.processes import RedisServer

    database = scratch_database()
    if not database:
        raise SystemExit("scale_bench needs DATABASE_URL on a PostgreSQL server")
    os.environ["DATABASE_URL"] = database
    # a private redis-server: a shared one's other consumers (a test run's worker) would take
    # this run's tasks
    redis = RedisServer().start()
    os.environ["REDIS_URL"] = redis.url
    try:
        _run_sizes()
    finally:
        redis.kill()


def _run_sizes() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    os.environ.setdefault("ASSAY_DATA_DIR", f"/tmp/assay-scale-bench-{os.getpid()}")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    print(f"PostgreSQL; {NODES} worker node(s) × {CONCURRENCY} processes")
    for size in SIZES:
        profile(size) if PROFILE else run(size)


def run(size: int) -> None:
    from tests.support.processes import Worker

    workspace, user, version, bindings, server = build(size)
    workers = [
        Worker(
            database_url=os.environ["DATABASE_URL"],
            redis_url=os.environ["REDIS_URL"],
            concurrency=CONCURRENCY,
        ).start()
        for _ in range(NODES)
    ]
    try:
        _wait_ready(workers)  # timed from the launch: a worker's own start is not the run's
        for number in range(RUNS):
            before = _results_bytes()
            web_before = reset_peak_rss()
            elapsed, experiment = launch(workspace, user, version, bindings, number)
            web = (web_before, own_peak_rss_mb())
            report(size, elapsed, experiment, workers, server, _results_bytes() - before, web)
            if number:
                _await_prepared(experiment, workers)
    finally:
        for worker in workers:
            worker.stop()
        if server is not None:
            server.stop()


def _wait_ready(workers, timeout_s: float = 120.0) -> None:
    """Until every node says it is ready (its pool forked, its processes warmed up), and a
    second more for the pool processes' warm-up to settle."""
    deadline = time.monotonic() + timeout_s
    while not all(" ready." in w.output() for w in workers):
        if time.monotonic() > deadline:
            raise SystemExit("the workers did not start")
        time.sleep(0.2)
    time.sleep(1)


def build(size: int):
    """A workspace, a committed version of `size` rows (written by one INSERT … SELECT), the
    bindings, and the local judge server when BENCH_THREE is set."""
    from assay import services as platform
    from tests.support.factories import make_code_version

    user = platform.user_create(username=f"scale{size}", password="bench-password-1")
    workspace = platform.workspace_create(name=f"Scale {size}", owner=user)
    started = time.perf_counter()
    version = _version_of(workspace, user, size)
    print(f"{size:,} rows written and committed in {time.perf_counter() - started:.1f} s")
    bindings = [{"evaluator_version": make_code_version(workspace=workspace, user=user)}]
    server = None
    if THREE:
        bindings.append(
            {
                "evaluator_version": make_code_version(
                    workspace=workspace, user=user, name="Contains, again"
                )
            }
        )
        server, judge = _judge(workspace, user)
        mapping = {"input": "column:input", "output": "column:actual_output"}
        bindings.append({"evaluator_version": judge, "mapping": mapping})
    return workspace, user, version, bindings, server


def _version_of(workspace, user, size: int):
    from django.db import connection

    from evalsets import services as evalset_services
    from evalsets.models import EvalSetItem
    from tests.support.factories import TEXT_COLUMNS

    evalset = evalset_services.evalset_create(
        workspace=workspace, user=user, name="Scale", columns=TEXT_COLUMNS
    )
    data = (
        "jsonb_build_object("
        "'input', jsonb_build_object('content_type', 'Text', 'text', 'question ' || n),"
        " 'actual_output', jsonb_build_object('content_type', 'Text', 'text',"
        " CASE WHEN n %% 2 = 0 THEN 'The capital is Paris' ELSE 'The capital is Lyon' END),"
        " 'reference_output', jsonb_build_object('content_type', 'Text', 'text', 'Paris'))"
    )
    sql = (
        f"INSERT INTO {EvalSetItem._meta.db_table} (evalset_id, version_id, import_job_id, item_id,"
        " position, data, tags, human_verdict, label, search_text)"
        f" SELECT %s, NULL, NULL, gen_random_uuid(), n, {data},"
        " jsonb_build_array(CASE WHEN n %% 2 = 0 THEN 'even' ELSE 'odd' END), '', '',"
        " 'question ' || n FROM generate_series(0, %s - 1) AS n"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [evalset.pk, size])
    return evalset_services.version_commit(evalset=evalset, user=user, version="1.0.0", inline=True)


def _judge(workspace, user):
    from tests.support.factories import make_llm_version, make_provider
    from tests.support.llm_server import ScriptedLlmServer

    server = ScriptedLlmServer(latency_s=JUDGE_LATENCY_S, record=False).start()
    provider = make_provider(workspace=workspace, server=server)
    provider.rpm_limit = 10_000_000  # the bench measures the pipeline, not a rate limit
    provider.save(update_fields=["rpm_limit"])
    return server, make_llm_version(workspace=workspace, user=user, provider=provider)


def _await_prepared(experiment, workers, timeout_s: float = 300.0) -> None:
    """Until the completion has stored the comparison with the run before (after its commit,
    in the worker), then the workers' peaks again."""
    from experiments.models import PairedComparison

    started = time.perf_counter()
    bindings = list(experiment.bindings.values_list("pk", flat=True))
    stored = PairedComparison.objects.filter(
        candidate_id__in=bindings, kind=PairedComparison.Kind.COMPARE
    )
    while not stored.exists():
        if time.perf_counter() - started > timeout_s:
            print("the first views' numbers were not stored")
            return
        time.sleep(0.1)
    peaks = ", ".join(f"{peak_rss_mb(w.process.pid):.0f}" for w in workers)
    waited = time.perf_counter() - started
    print(f"first views' numbers stored {waited:.1f} s after completed; worker peaks {peaks} MB")


def launch(workspace, user, version, bindings, number: int = 0):
    """Launch through the API with a token of the workspace; wait until it ends."""
    client = token_client(workspace=workspace, user=user)
    client.get("/api/v1/experiments/")  # warm this process's URLconf and API imports
    from assay.tasks import ping

    ping.delay("warm")  # and its broker connection: a web process has sent tasks before
    body = {
        "name": f"scale {version.item_count} #{number + 1}",
        "evalset_version": str(version.public_id),
        "bindings": [
            {**b, "evaluator_version": str(b["evaluator_version"].public_id)} for b in bindings
        ],
        "launch": True,
        "concurrency": JUDGE_CONCURRENCY,
    }
    return launch_and_wait(client, body, poll_s=0.05)


def _results_bytes() -> int:
    """The results table with its indexes and TOAST, in bytes (the run adds to it only)."""
    from django.db import connection

    from experiments.models import Result

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_total_relation_size(%s)", [Result._meta.db_table])
        return cursor.fetchone()[0]


def report(
    size: int, elapsed: float, experiment, workers, server, total_bytes: int, web: tuple
) -> None:
    from experiments.models import Result

    count = Result.objects.filter(experiment=experiment).count()
    peaks = ", ".join(f"{peak_rss_mb(w.process.pid):.0f}" for w in workers)
    print(
        f"{size:>9,} rows × {len(experiment.bindings.all())} evaluators: {experiment.status} in "
        f"{elapsed:7.2f} s = {size / elapsed:8,.0f} rows/s; results {count:,} "
        f"(exactly once: {count == size * experiment.bindings.count()}); "
        f"worker peak RSS per node {peaks} MB; web process {web[0]:.0f} MB at launch, "
        f"peak {web[1]:.0f} MB until completed; "
        f"{total_bytes / max(count, 1):.0f} bytes per result (table + indexes + TOAST)"
    )
    print(_phases(experiment, elapsed))
    if server is not None:
        print(
            f"judge: the experiment's concurrency {JUDGE_CONCURRENCY}, "
            f"most requests in flight at once {server.state.max_in_flight}; "
            f"{_in_flight_profile(server.state.time_at)}"
        )


def _in_flight_profile(time_at: dict[int, float]) -> str:
    """Mean in flight from the judge's first request to its last answer, and the share of that
    time spent at the limit, above it and idle."""
    total = sum(time_at.values()) or 1.0
    mean = sum(level * spent for level, spent in time_at.items()) / total
    at = sum(s for level, s in time_at.items() if level == JUDGE_CONCURRENCY) / total
    above = sum(s for level, s in time_at.items() if level > JUDGE_CONCURRENCY) / total
    return (
        f"mean in flight {mean:.1f} over {total:.1f} s; at {JUDGE_CONCURRENCY}: {at:.0%}, "
        f"above: {above:.0%}, none: {time_at.get(0, 0.0) / total:.0%}"
    )


def _phases(experiment, elapsed: float) -> str:
    """Where the run's time went, from its own timestamps: the launch request (planning the
    chunks), the wait for the start task, the chunks (to the last chunk finished) and the
    finish (the rest: counters, aggregates and the completed claim, which commit together)."""
    from django.db.models import Max

    experiment.refresh_from_db()
    last = experiment.chunks.aggregate(at=Max("finished_at"))["at"]
    marks = [experiment.created_at, experiment.queued_at, experiment.started_at, last]
    if None in marks:
        return "phases: not all timestamps were set"
    spans = [(b - a).total_seconds() for a, b in zip(marks, marks[1:], strict=False)]
    spans.append(elapsed - (last - experiment.created_at).total_seconds())
    names = ("launch request", "start", "chunks", "finish")
    return "phases: " + ", ".join(f"{n} {s:.2f} s" for n, s in zip(names, spans, strict=True))


# ----------------------------------------------------------------------------- BENCH_PROFILE

PROFILED = (
    "experiments/runs/",
    "experiments/scoring/",
    "evaluators/runner.py",
    "evaluators/kinds/",
    "sandbox/",
)


def profile(size: int) -> None:
    """Run BENCH_PROFILE chunks in this process under cProfile (after BENCH_FILL done ones)."""
    import cProfile

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from experiments import scoring as engine
    from experiments.models import ExperimentChunk

    workspace, user, version, bindings, _server = build(size)
    experiment = _launched(workspace, user, version, bindings)
    engine.experiment_begin(experiment_id=experiment.pk)
    chunks = list(ExperimentChunk.objects.filter(experiment=experiment).order_by("index"))
    _fill(experiment, chunks[:FILL])
    todo, profiler = chunks[FILL : FILL + PROFILE], cProfile.Profile()
    started = time.perf_counter()
    with CaptureQueriesContext(connection) as queries:
        for chunk in todo:
            _profiled_chunk(engine, chunk.pk, profiler)
    elapsed = time.perf_counter() - started
    rows = sum(min(c.position_to, size) - c.position_from for c in todo)
    print(
        f"{len(todo)} chunks after {FILL} done: {rows:,} rows in {elapsed:.2f} s = "
        f"{rows / elapsed:,.0f} rows/s in one process (profiled); "
        f"{len(queries.captured_queries)} queries"
    )
    _print_profile(profiler, elapsed)


def _launched(workspace, user, version, bindings):
    """Created and launched through the services; no worker takes its start message."""
    from experiments import services

    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=f"profile {version.item_count}",
        evalset_version=version,
        bindings=bindings,
    )
    return services.experiment_launch(experiment=experiment)


def _profiled_chunk(engine, chunk_id: int, profiler) -> None:
    """What the chunk task does, in this process: claim, dispatch, work, complete."""
    profiler.enable()
    chunk, token = engine.chunk_claim(chunk_id=chunk_id)
    engine.chunks_dispatch(["code"])
    outcome = engine.chunk_run(chunk=chunk, token=token)
    engine.chunk_complete(chunk=chunk, token=token)
    profiler.disable()
    if outcome != "done":
        raise SystemExit(f"chunk {chunk_id} ended {outcome}")


def _print_profile(profiler, elapsed: float) -> None:
    """Our functions by cumulative time (a function's callees included), largest first."""
    import pstats

    ours = []
    for (file, _line, name), (_cc, calls, _tt, cumulative, _callers) in pstats.Stats(
        profiler
    ).stats.items():
        where = next((p for p in PROFILED if p in file), None)
        if where and cumulative >= 0.01 * elapsed:
            ours.append((cumulative, calls, f"{Path(file).name}:{name}"))
    for cumulative, calls, label in sorted(ours, reverse=True)[:30]:
        print(f"  {label:52} {calls:7} calls {cumulative:7.3f} s {cumulative / elapsed:6.1%}")


def _fill(experiment, chunks) -> None:
    """The first chunks' results written by one INSERT … SELECT and those chunks marked done:
    the state of a run that is most of the way through."""
    from django.db import connection

    from evalsets.models import EvalSetItem
    from experiments.models import Experiment, ExperimentChunk, Result

    if not chunks:
        return
    binding = experiment.bindings.order_by("pk").first()
    sql = (
        f"INSERT INTO {Result._meta.db_table} (experiment_id, binding_id, item_id,"
        " repeat, turn, position, tags, status, score, reason, verdict, error, stdout,"
        " latency_ms, tokens_in, tokens_out, attempt, cached, human_verdict, correction_note)"
        " SELECT %s, %s, id, 0, 0, position, tags, 'success',"
        " 1.0, 'contains', 'pass', '', '', 1.0, 0, 0, 0, false, '', ''"
        f" FROM {EvalSetItem._meta.db_table} WHERE evalset_id = %s AND version_id = %s"
        " AND position < %s"
    )
    version = experiment.evalset_version
    with connection.cursor() as cursor:
        cursor.execute(
            sql, [experiment.pk, binding.pk, version.evalset_id, version.pk, chunks[-1].position_to]
        )
        cursor.execute(f"ANALYZE {Result._meta.db_table}")
    ExperimentChunk.objects.filter(pk__in=[c.pk for c in chunks]).update(status="done")
    Experiment.objects.filter(pk=experiment.pk).update(chunks_done=len(chunks))


if __name__ == "__main__":
    main()
