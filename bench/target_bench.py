"""Target benchmark: an HTTP target against a local app with a fixed latency, and an external
target's output ingestion — launched through the API, run by a real worker process.

    python bench/target_bench.py [--rows 2000] [--latency 0.2] [--concurrency 64]
        [--chunk-size 1000] [--workers 2] [--pipeline-runs 3] [--no-profile]
        [--push-rows 20000] [--push-batch 1000]

HTTP: rows/s of the target's batch call (the 2,000 rows sent as one batch, as
`bench/llm_bench.py` measures judges) and launch-to-completed through the worker (median of
`--pipeline-runs`), each next to the ideal `concurrency / latency`, with the most requests the
app saw in flight at once: the worker's processes (`--workers`, the default worker's count on
two cores) share the run's `concurrency` slots, so the app never sees more however many
chunks run at once. Target: >= 90 % of ideal. Then the worker's CPU per row (/proc, the whole
process tree) and where a run's chunks spend it: one run worked in this process under
cProfile on the thread's CPU clock, split by phase.

External: outputs accepted per second by `POST /api/v1/experiments/{id}/outputs/` (the
request and its storage, timed in this process through the API), then the time until every
pushed row is scored. Target: >= 5,000 outputs/s. Uses DATABASE_URL's server with a scratch
database `assay_bench` (else SQLite) and REDIS_URL (else a private redis-server); asserts
nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.support import (  # noqa: E402
    ENGINE_PHASES,
    peak_rss_mb,
    platform_with_worker,
    run_phases,
    run_timeline,
)


def main() -> None:
    args = parse_args()
    with platform_with_worker(concurrency=args.workers) as worker:
        print(f"load average at the start: {load()}")
        http_batch(args)
        http_pipeline(args, worker)
        external_run(args, worker)
        worker.stop()  # the profiled run's chunks are this process's alone
        if args.profile:
            http_profile(args)
        print(f"load average at the end: {load()}")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--chunk-size", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2, help="worker processes")
    parser.add_argument("--pipeline-runs", type=int, default=3)
    parser.add_argument("--no-profile", dest="profile", action="store_false")
    parser.add_argument("--push-rows", type=int, default=20000)
    parser.add_argument("--push-batch", type=int, default=1000)
    return parser.parse_args()


def setting_up(label: str, rows: int):
    """A fresh workspace, a committed evalset version of `rows` rows, a code check and an API
    client with the owner's token."""
    from assay import services as platform
    from bench.support import token_client
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    user = platform.user_create(username=f"bench-{label}", password="bench-password-1")
    workspace = platform.workspace_create(name=f"Bench {label}", owner=user)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows))
    check = make_code_version(workspace=workspace, user=user)
    client = token_client(workspace=workspace, user=user)
    client.get("/api/v1/experiments/")  # warm this process's URLconf and API imports
    return version, check, client


def launch(client, body: dict):
    from experiments.models import Experiment

    response = client.post("/api/v1/experiments/", body, format="json")
    if response.status_code not in (201, 202):
        raise SystemExit(f"launch failed: {response.status_code} {response.content[:500]}")
    return Experiment.objects.get(public_id=response.json()["id"])


def wait_finished(experiment) -> None:
    from experiments.models import ExperimentStatus

    finished = (ExperimentStatus.COMPLETED, ExperimentStatus.FAILED, ExperimentStatus.CANCELLED)
    while experiment.status not in finished:
        time.sleep(0.02)
        experiment.refresh_from_db(fields=["status"])


def start_app(latency: float) -> tuple[subprocess.Popen, str]:
    """The scripted app in its own process: it must not share a GIL with anything measured."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "tests.support.app_server", "--latency", str(latency)]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, f"http://127.0.0.1:{int(process.stdout.readline())}"


MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


def run_body(name: str, version, check, target: dict, **options) -> dict:
    """The API body of a launched run scoring the target's answers with the code check."""
    return {
        "name": name,
        "evalset_version": str(version.public_id),
        "target": target,
        "bindings": [{"evaluator_version": str(check.public_id), "mapping": MAPPING}],
        "launch": True,
        **options,
    }


def http_target(url: str) -> dict:
    return {
        "kind": "http",
        "url": f"{url}/answer",
        "body": {"question": "{{input}}"},
        "output": "answer",
        "tokens_in": "usage.input_tokens",
        "tokens_out": "usage.output_tokens",
    }


def http_batch(args) -> None:
    """The target's own batch call on every row at once: no chunks, no worker."""
    from experiments.models import Experiment
    from experiments.services.runs import target_validated

    version, _check, _client = setting_up("http-batch", args.rows)
    items = list(version.items.order_by("position"))
    app, url = start_app(args.latency)
    try:
        errors: dict = {}
        kind, config = target_validated(
            version.evalset.workspace, http_target(url), version, errors
        )
        probe = Experiment(
            workspace=version.evalset.workspace,
            evalset_version=version,
            target_kind=kind,
            target_config=config,
            concurrency=args.concurrency,
        )
        started = time.perf_counter()
        rows = probe.target_spec.run_batch(experiment=probe, items=items, repeat=0, cancel=None)
        elapsed = time.perf_counter() - started
        stats = httpx.get(f"{url}/_stats").json()
    finally:
        app.kill()
    ok = sum(1 for r in rows if r["status"] == "success")
    ideal = args.concurrency / args.latency
    print(
        f"HTTP target batch, {args.rows:,} rows at {args.latency * 1000:.0f} ms, concurrency "
        f"{args.concurrency}: {elapsed:.2f} s = {args.rows / elapsed:,.0f} rows/s of ideal "
        f"{ideal:,.0f} ({args.rows / elapsed / ideal:.0%}); ok {ok:,}; at most "
        f"{stats['max_in_flight']} in flight"
    )


def http_pipeline(args, worker) -> None:
    """Launch → completed through the API and the worker, `--pipeline-runs` times: each run's
    figures, then the median."""
    from bench.support import median, tree_cpu_s

    ideal = args.concurrency / args.latency
    seconds, cpu = [], []
    for run in range(args.pipeline_runs):
        cpu_before = tree_cpu_s(worker.process.pid)
        seconds.append(http_run(args, worker, run))
        cpu.append(tree_cpu_s(worker.process.pid) - cpu_before)
        print(
            f"  worker CPU {cpu[-1]:.2f} s = {1000 * cpu[-1] / args.rows:.2f} ms a row "
            f"(target call and its code check); load {load()}"
        )
    best = median(seconds)
    print(
        f"HTTP target pipeline median of {len(seconds)}: {best:.2f} s = "
        f"{args.rows / best:,.0f} rows/s of ideal {ideal:,.0f} ({args.rows / best / ideal:.1%});"
        f" worker CPU median {1000 * median(cpu) / args.rows:.2f} ms a row"
    )


def http_run(args, worker, run: int) -> float:
    from bench.support import observer_quiet
    from experiments.models import Result, TargetResult

    version, check, client = setting_up(f"http{run}", args.rows)
    app, url = start_app(args.latency)
    try:
        body = run_body(
            "bench http",
            version,
            check,
            http_target(url),
            concurrency=args.concurrency,
            chunk_size=args.chunk_size,
        )
        observer_quiet()
        started = time.perf_counter()
        experiment = launch(client, body)
        wait_finished(experiment)
        elapsed = time.perf_counter() - started
        stats = httpx.get(f"{url}/_stats").json()
    finally:
        app.kill()
    calls, in_flight = stats["calls"], stats["max_in_flight"]
    ideal = args.concurrency / args.latency
    done = TargetResult.objects.filter(experiment=experiment, status="success").count()
    print(
        f"HTTP target pipeline, {args.rows:,} rows at {args.latency * 1000:.0f} ms, concurrency "
        f"{args.concurrency}, chunks of {args.chunk_size}, {args.workers} worker processes: "
        f"{experiment.status} in {elapsed:.2f} s = {args.rows / elapsed:,.0f} rows/s of ideal "
        f"{ideal:,.0f} ({args.rows / elapsed / ideal:.0%}); app calls {calls:,}, at most "
        f"{in_flight} in flight; target rows ok {done:,}; results "
        f"{Result.objects.filter(experiment=experiment).count():,}; "
        f"worker peak RSS {peak_rss_mb(worker.process.pid):.0f} MB\n"
        f"    {run_phases(experiment, elapsed)}\n"
        f"    {run_timeline(experiment, None, None)}"
    )
    return elapsed


# Where a run's chunks spend their CPU: phase → (file suffix, function) entries whose
# cumulative time it is (none calls another of the list).
PHASES = {
    **ENGINE_PHASES,
    "target: requests rendered": [("experiments/targets/http/call.py", "for_items")],
    "target: run-wide slots (Redis)": [
        ("evaluators/llm/slots.py", "acquire"),
        ("evaluators/llm/slots.py", "release"),
        ("evaluators/llm/slots.py", "close"),
    ],
    "target: rate limit": [("evaluators/llm/ratelimit.py", "acquire")],
    "target: HTTP send + receive": [("experiments/targets/http/call.py", "send")],
    "target: answers extracted": [("experiments/targets/http/__init__.py", "row_fields")],
    "target: rows built and written": [
        ("experiments/scoring/chunks.py", "target_row"),
        ("experiments/scoring/chunks.py", "_commit"),
    ],
    "code check (sandbox, verdicts, results written)": [
        ("experiments/scoring/evaluator_work.py", "__call__"),
    ],
}


def http_profile(args) -> None:
    """One more run's chunks worked in this process (as the chunk task does), under cProfile
    on this thread's CPU clock, split by phase."""
    from bench.support import chunks_in_process, print_phases
    from experiments import services

    version, check, _client = setting_up("http-profile", args.rows)
    app, url = start_app(args.latency)
    try:
        experiment = services.experiment_create(
            workspace=version.evalset.workspace,
            user=version.evalset.created_by,
            name="bench http profiled",
            evalset_version=version,
            bindings=[{"evaluator_version": check, "mapping": MAPPING}],
            target=http_target(url),
            concurrency=args.concurrency,
            chunk_size=args.chunk_size,
        )
        experiment = services.experiment_launch(experiment=experiment)
        profiler, wall = chunks_in_process(experiment)
    finally:
        app.kill()
    print(f"profile: one run's chunks in one process, {wall:.2f} s; CPU of its main thread:")
    print_phases(profiler, PHASES, args.rows)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def external_run(args, worker) -> None:
    from experiments.models import Result

    version, check, client = setting_up("external", args.push_rows)
    body = run_body(
        "bench external", version, check, {"kind": "external"}, chunk_size=args.push_batch
    )
    experiment = launch(client, body)
    ids = [str(i) for i in version.items.order_by("position").values_list("item_id", flat=True)]
    url = f"/api/v1/experiments/{experiment.public_id}/outputs/"
    started = time.perf_counter()
    for start in range(0, len(ids), args.push_batch):
        batch = [
            {"item_id": i, "actual_output": "The capital is Paris", "latency_ms": 120.0}
            for i in ids[start : start + args.push_batch]
        ]
        response = client.post(url, {"outputs": batch}, format="json")
        if response.status_code != 202:
            raise SystemExit(f"push failed: {response.status_code} {response.content[:500]}")
    pushed = time.perf_counter() - started
    wait_finished(experiment)
    scored = time.perf_counter() - started
    print(
        f"External target, {len(ids):,} outputs in batches of {args.push_batch:,}: ingested in "
        f"{pushed:.2f} s = {len(ids) / pushed:,.0f} outputs/s; {experiment.status} (all scored) "
        f"{scored:.2f} s after the first push; results "
        f"{Result.objects.filter(experiment=experiment).count():,}"
    )


if __name__ == "__main__":
    main()
