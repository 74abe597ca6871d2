"""Judge throughput against the local scripted server (a separate process, fixed latency).

Prints rows/s at each concurrency next to the ideal ``concurrency / latency``, the cache-hit
path, and the per-call cost of rendering and parsing. Target: >= 90 % of ideal at 64.

    .venv/bin/python bench/llm_bench.py [--rows 2000] [--latency 0.2] [--concurrency 16 64]
        [--repeat 3]      (set REDIS_URL to also measure the Redis cache)
        [--pipeline-runs 3] [--workers 2] [--only pipeline|batch]

Pipeline: the same judge launched through the API on a committed evalset version of
``--rows`` distinct rows (chunks of 1,000), run by a real worker of ``--workers`` processes,
launch → completed, median of ``--pipeline-runs``, with the worker's CPU seconds per row
(/proc, the whole process tree) and where a chunk's CPU goes: one run's chunks in this
process under cProfile on the thread's CPU clock, split by phase (`bench.support`). Uses
DATABASE_URL's server with a scratch database (BENCH_DB, default `assay_bench`; else SQLite)
and REDIS_URL (else a private redis-server).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.support import ENGINE_PHASES, token_client  # noqa: E402 - after the path set-up
from evaluators.llm import (  # noqa: E402 - after the path set-up
    MemoryCache,
    ProviderSettings,
    build_request,
    make_cache,
    parse_answer,
    run_llm_batch,
)

CONFIG: dict[str, Any] = {
    "input_variables": [
        {"name": "question", "content_type": "Text", "required": True},
        {"name": "answer", "content_type": "Text", "required": True},
    ],
    "messages": [
        {"role": "system", "content": "You grade answers for correctness."},
        {"role": "user", "content": "Question: {{question}}\nAnswer: {{answer}}"},
    ],
    "model": {"provider_id": None, "model": "judge-model", "temperature": 0, "max_tokens": 200},
}
PARSE_SAMPLES = {
    "clean": '{"reason": "The answer matches the reference.", "score": 0.8}',
    "fenced": '```json\n{"reason": "Matches.", "score": 0.8}\n```',
    "prose": 'Here is my evaluation.\n{"reason": "Matches.", "score": 0.8}\nThanks.',
    "repairable": "{'reason': 'single quotes', 'score': 0.6,}",
    "pattern": "The answer is partly correct.\nScore: 0.45\nIt misses a point.",
}


def turns(count: int) -> list[dict[str, Any]]:
    """Distinct turns, so every row is a distinct request (no accidental cache hits)."""
    return [
        {
            "evaluate_dataset_fields": {"question": {"content_type": "Text", "text": f"Q{i}?"}},
            "evaluate_target_output_fields": {"answer": {"content_type": "Text", "text": f"A{i}"}},
            "ext": {},
        }
        for i in range(count)
    ]


def start_server(latency: float) -> tuple[subprocess.Popen[str], int]:
    """The scripted server in its own process (it must not share our GIL)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "tests.support.llm_server", "--latency", str(latency)]
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, int(process.stdout.readline())


def timed_batch(rows: list[dict[str, Any]], settings: ProviderSettings, **options: Any) -> float:
    """Seconds for one batch; fails loudly if any row did not succeed."""
    started = time.perf_counter()
    outcomes = run_llm_batch(CONFIG, rows, settings, **options)
    elapsed = time.perf_counter() - started
    failed = [o for o in outcomes if o.status != "success"]
    if failed:
        raise SystemExit(f"{len(failed)} rows failed, first: {failed[0].error}")
    return elapsed


def bench_throughput(args: argparse.Namespace, settings: ProviderSettings) -> None:
    """Rows/s per concurrency; the best of ``--repeat`` runs (others' load only slows runs)."""
    rows = turns(args.rows)
    timed_batch(rows[:64], settings, concurrency=64)  # warm-up: imports, lazy set-up
    for concurrency in args.concurrency:
        ideal = concurrency / args.latency
        rates = [
            args.rows / timed_batch(rows, settings, concurrency=concurrency)
            for _ in range(max(1, args.repeat))
        ]
        runs = ", ".join(f"{100 * rate / ideal:.1f}" for rate in rates)
        best = max(rates)
        print(
            f"concurrency {concurrency:>3}: best {best:6.1f} rows/s ({args.rows / best:5.2f} s) "
            f"vs ideal {ideal:6.1f} rows/s ({args.rows / ideal:5.2f} s) -> "
            f"{100 * best / ideal:5.1f} % of ideal; runs (% of ideal): {runs}"
        )


def bench_cache(args: argparse.Namespace, settings: ProviderSettings) -> None:
    rows = turns(args.rows)
    caches: list[tuple[str, Any]] = [("memory", MemoryCache())]
    if os.environ.get("REDIS_URL"):
        caches.append(("redis", make_cache(os.environ["REDIS_URL"], ttl_s=600)))
    for name, cache in caches:
        options = {"concurrency": 64, "cache": cache, "version_key": f"bench-{time.time()}"}
        cold = timed_batch(rows, settings, **options)
        warm = timed_batch(rows, settings, **options)
        print(
            f"cache ({name:6}): cold {cold:5.2f} s, re-run {warm:5.3f} s = "
            f"{args.rows / warm:8.0f} rows/s from cache (no HTTP)"
        )


def bench_parse(repeat: int = 2000) -> None:
    for name, text in PARSE_SAMPLES.items():
        started = time.perf_counter()
        for _ in range(repeat):
            parse_answer(text)
        micros = (time.perf_counter() - started) / repeat * 1e6
        print(f"parse {name:10}: {micros:7.1f} µs per answer")
    row = turns(1)[0]
    started = time.perf_counter()
    for _ in range(repeat):
        build_request(CONFIG, row)
    print(f"render+body   : {(time.perf_counter() - started) / repeat * 1e6:7.1f} µs per row")


# ----------------------------------------------------------------------------- pipeline

# Where a judge chunk's CPU goes: phase → the functions whose cumulative time it is (none of
# them calls another of the list, so the phases do not overlap).
PHASES = {
    **ENGINE_PHASES,
    "turns built": [("experiments/scoring/per_turn.py", "binding_cases")],
    "scored-rows and target reads": [
        ("experiments/scoring/evaluator_work.py", "scored_rows"),
        ("experiments/scoring/turns.py", "target_outputs"),
    ],
    "render + request body": [("evaluators/llm/request.py", "build_request")],
    "run-wide slots (Redis)": [
        ("evaluators/llm/slots.py", "acquire"),
        ("evaluators/llm/slots.py", "release"),
        ("evaluators/llm/slots.py", "close"),
    ],
    "rate limit": [("evaluators/llm/ratelimit.py", "acquire")],
    "cache get/set": [
        ("evaluators/llm/client.py", "_cache_get"),
        ("evaluators/llm/client.py", "_cache_set"),
    ],
    "HTTP send + receive (aiohttp)": [("evaluators/llm/client.py", "send")],
    "answer parsed": [("evaluators/llm/client.py", "_answer_result")],
    "clients opened and closed": [
        ("evaluators/llm/pool.py", "__init__"),
        ("evaluators/llm/client.py", "close"),
    ],
    "outcomes, verdicts, caps": [
        ("evaluators/llm/batch.py", "_outcome"),
        ("evaluators/providers.py", "<listcomp>"),
        ("evaluators/runner.py", "_bounded"),
        ("evaluators/runner.py", "_verdicts"),
        ("experiments/scoring/evaluator_work.py", "result_rows"),
    ],
    "results written (COPY, upsert, lease, progress)": [
        ("experiments/scoring/chunks.py", "_commit"),
    ],
}


MAPPING = {"question": "column:input", "answer": "column:actual_output"}
# A rate limit that never binds at 320 requests/s: the limiter is on the path (one booking a
# call), as with any provider, without setting the pace.
RPM_LIMIT = 100_000


def judge_workspace(port: int, label: str):
    """A workspace with a provider on the scripted server, a submitted judge version on it
    (the bench's CONFIG), and an API client with the owner's token."""
    from assay import services as platform
    from evaluators import services as evaluators

    user = platform.user_create(username=f"bench-{label}", password="bench-password-1")
    workspace = platform.workspace_create(name=f"Bench {label}", owner=user)
    provider = platform.provider_create(
        workspace=workspace,
        name="Scripted",
        base_url=f"http://127.0.0.1:{port}/v1",
        default_model="judge-model",
        api_key="sk-bench-0123456789",
        rpm_limit=RPM_LIMIT,
    )
    judge = evaluators.evaluator_create(workspace=workspace, user=user, name="Judge", kind="llm")
    model = {**CONFIG["model"], "provider_id": str(provider.public_id)}
    evaluators.evaluator_update_draft(evaluator=judge, user=user, config={**CONFIG, "model": model})
    version = evaluators.evaluator_submit_version(evaluator=judge, user=user, version="1.0.0")
    client = token_client(workspace=workspace, user=user)
    client.get("/api/v1/experiments/")  # warm this process's URLconf and API imports
    return workspace, user, version, client


def distinct_version(workspace, user, rows: int, run: int):
    """A committed evalset version whose rows no earlier run asked (no cache hits)."""
    from tests.support.factories import make_evalset_version

    data = [
        {"input": f"Q{run}-{i}?", "actual_output": f"A{run}-{i}", "reference_output": "A"}
        for i in range(rows)
    ]
    return make_evalset_version(
        workspace=workspace, user=user, rows=data, name=f"Judged {run}", version="1.0.0"
    )


def judge_body(version, judge, concurrency: int) -> dict:
    return {
        "name": f"judge {version.evalset.name}",
        "evalset_version": str(version.public_id),
        "bindings": [
            {
                "evaluator_version": str(judge.public_id),
                "mapping": MAPPING,
            }
        ],
        "concurrency": concurrency,
        "launch": True,
    }


def bench_pipeline(args: argparse.Namespace, port: int) -> None:
    """Launch → completed through the API and a real worker; the median of the runs."""
    from bench.support import (
        median,
        platform_with_worker,
        run_phases,
        run_timeline,
        tree_cpu_s,
    )

    concurrency = max(args.concurrency)
    ideal = args.rows / (concurrency / args.latency)
    with platform_with_worker(concurrency=args.workers) as worker:
        workspace, user, judge, client = judge_workspace(port, "pipeline")
        seconds, cpu = [], []
        for run in range(args.pipeline_runs):
            version = distinct_version(workspace, user, args.rows, run)
            server_stats(port, reset=True)
            cpu_before = tree_cpu_s(worker.process.pid)
            elapsed, experiment = _launched_and_done(
                client, judge_body(version, judge, concurrency)
            )
            cpu.append(tree_cpu_s(worker.process.pid) - cpu_before)
            seconds.append(elapsed)
            stats = server_stats(port)
            print(
                f"  pipeline run {run + 1}: {experiment.status} in {elapsed:.2f} s = "
                f"{100 * ideal / elapsed:.1f} % of ideal; worker CPU {cpu[-1]:.2f} s = "
                f"{1000 * cpu[-1] / args.rows:.2f} ms a row; load {_load()}\n"
                f"    {run_phases(experiment, elapsed)}\n"
                f"    server: {in_flight(stats, concurrency)}\n"
                f"    {run_timeline(experiment, stats['first_at'], stats['last_at'])}"
            )
        best = median(seconds)
        print(
            f"judge pipeline (API launch -> completed, {args.workers} worker processes, "
            f"concurrency {concurrency}): median {best:.2f} s = {args.rows / best:.1f} rows/s vs "
            f"ideal {ideal:.2f} s -> {100 * ideal / best:.1f} % of ideal; worker CPU median "
            f"{1000 * median(cpu) / args.rows:.2f} ms a row"
        )
        worker.stop()  # the profiled run's chunks are this process's alone
        if args.profile:
            profile_run(workspace, user, judge, args, concurrency)


def server_stats(port: int, *, reset: bool = False) -> dict:
    import httpx

    return httpx.get(f"http://127.0.0.1:{port}/_stats" + ("?reset" if reset else "")).json()


def in_flight(stats: dict, limit: int) -> str:
    """Mean requests in flight from the first request to the last answer, and the share of
    that time at the limit and with none."""
    time_at = {int(level): seconds for level, seconds in stats["time_at"].items()}
    total = sum(time_at.values()) or 1.0
    mean = sum(level * seconds for level, seconds in time_at.items()) / total
    return (
        f"at most {stats['max_in_flight']} in flight, mean {mean:.1f} over {total:.2f} s; "
        f"at {limit}: {time_at.get(limit, 0.0) / total:.0%}, "
        f"none: {time_at.get(0, 0.0) / total:.0%}"
    )


def _launched_and_done(client, body: dict):
    from bench.support import launch_and_wait
    from experiments.models import Result

    elapsed, experiment = launch_and_wait(client, body)
    ok = Result.objects.filter(experiment=experiment, status="success").count()
    if ok != experiment.items_total:
        raise SystemExit(f"{experiment.items_total - ok} rows were not judged")
    return elapsed, experiment


def profile_run(workspace, user, judge, args: argparse.Namespace, concurrency: int) -> None:
    """One more run's chunks worked in this process under cProfile (claim, run, complete, as
    the chunk task does), its CPU split by phase."""
    from bench.support import chunks_in_process, print_phases
    from experiments import services

    version = distinct_version(workspace, user, args.rows, args.pipeline_runs)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="judge profiled",
        evalset_version=version,
        bindings=[{"evaluator_version": judge, "mapping": MAPPING}],
        concurrency=concurrency,
    )
    experiment = services.experiment_launch(experiment=experiment)
    profiler, wall = chunks_in_process(experiment)
    print(f"profile: one run's chunks in one process, {wall:.2f} s; CPU of its main thread:")
    print_phases(profiler, PHASES, args.rows)


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description="LLM judge throughput benchmark")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.2, help="server seconds per answer")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--repeat", type=int, default=3, help="runs per concurrency")
    parser.add_argument("--pipeline-runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2, help="worker processes (pipeline)")
    parser.add_argument("--only", choices=["batch", "pipeline"], default=None)
    parser.add_argument(
        "--no-profile", dest="profile", action="store_false", help="skip the profiled run"
    )
    args = parser.parse_args()
    process, port = start_server(args.latency)
    try:
        settings = ProviderSettings(base_url=f"http://127.0.0.1:{port}/v1", api_key="bench")
        print(f"server latency {args.latency * 1000:.0f} ms, {args.rows} rows per run")
        print(f"load average at the start: {_load()}")
        if args.only != "pipeline":
            bench_throughput(args, settings)
            bench_cache(args, settings)
            bench_parse()
        if args.only != "batch":
            bench_pipeline(args, port)
        print(f"load average at the end: {_load()}")
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
