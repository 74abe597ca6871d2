"""Judge throughput against the local scripted server (a separate process, fixed latency).

Prints rows/s at each concurrency next to the ideal ``concurrency / latency``, the cache-hit
path, and the per-call cost of rendering and parsing. Target: >= 90 % of ideal at 64.

    .venv/bin/python bench/llm_bench.py [--rows 2000] [--latency 0.2] [--concurrency 16 64]
        [--repeat 3]      (set REDIS_URL to also measure the Redis cache)
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


def main() -> None:
    parser = argparse.ArgumentParser(description="LLM judge throughput benchmark")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.2, help="server seconds per answer")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--repeat", type=int, default=3, help="runs per concurrency")
    args = parser.parse_args()
    process, port = start_server(args.latency)
    try:
        settings = ProviderSettings(base_url=f"http://127.0.0.1:{port}/v1", api_key="bench")
        print(f"server latency {args.latency * 1000:.0f} ms, {args.rows} rows per run")
        bench_throughput(args, settings)
        bench_cache(args, settings)
        bench_parse()
    finally:
        process.terminate()
        process.wait(timeout=10)


if __name__ == "__main__":
    main()
