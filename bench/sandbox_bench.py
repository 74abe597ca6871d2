"""Sandbox benchmark: per-turn overhead in batch mode, batch start cost, runaway stop time.

Run as `python bench/sandbox_bench.py` from the repository root. Prints figures; asserts nothing.
Targets: Python batch overhead < 50 µs per turn; a runaway stopped within timeout + 1 s.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sandbox  # noqa: E402 - after the path set-up above

TURNS = 10_000
PY_TRIVIAL = "def exec_evaluation(turn):\n    return EvalOutput(score=1.0, reason='ok')\n"
JS_TRIVIAL = "function exec_evaluation(turn) { return {score: 1, reason: 'ok'}; }\n"
PY_EQUALS = """
def exec_evaluation(turn):
    actual = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    expected = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    same = actual.strip() == expected.strip()
    return EvalOutput(score=1.0 if same else 0.0, reason="equal" if same else "different")
"""
PY_RUNAWAY = "def exec_evaluation(turn):\n    while True:\n        pass\n"
JS_RUNAWAY = "function exec_evaluation(turn) { while (true) {} }\n"


def make_turn(i: int) -> dict:
    """A realistic small turn (Coze Loop shape)."""
    return {
        "evaluate_dataset_fields": {
            "reference_output": {"content_type": "Text", "text": f"answer {i % 7}"},
        },
        "evaluate_target_output_fields": {
            "actual_output": {"content_type": "Text", "text": f"answer {i % 5}"},
        },
        "ext": {},
    }


def per_turn_us(language: str, source: str, turns: list[dict]) -> tuple[float, float]:
    """(wall µs per turn for the whole batch call, mean in-child evaluator µs per turn)."""
    started = time.perf_counter()
    outcomes = sandbox.execute(language, source, turns)
    wall = (time.perf_counter() - started) / len(turns) * 1e6
    bad = [o for o in outcomes if o.status != "ok"]
    if bad:
        raise SystemExit(f"benchmark evaluator failed: {bad[0]}")
    inner = statistics.fmean(o.duration_ms for o in outcomes) * 1000
    return wall, inner


def batch_start_ms(repeats: int = 50) -> tuple[float, float]:
    """(median, p95) ms of a one-turn batch: fork from the zygote + compile + one turn."""
    turn = [make_turn(0)]
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        sandbox.execute("python", PY_TRIVIAL, turn)
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def runaway_stop_s(language: str, source: str, timeout_s: float = 1.0) -> tuple[float, str]:
    """Seconds until a runaway single-turn batch returns, and its status."""
    started = time.perf_counter()
    outcome = sandbox.execute(language, source, [make_turn(0)], timeout_s=timeout_s)[0]
    return time.perf_counter() - started, outcome.status


def main() -> None:
    """Print every figure."""
    started = time.perf_counter()
    report = sandbox.isolation_report()
    print(f"zygote start + probe: {(time.perf_counter() - started) * 1000:.0f} ms")
    print(
        f"isolation level: {report['level']} (bubblewrap={report.get('bubblewrap')}, "
        f"netns={report.get('network_namespace')}, uid={report.get('uid')})"
    )
    turns = [make_turn(i) for i in range(TURNS)]
    sandbox.execute("python", PY_TRIVIAL, turns[:100])  # warm-up
    for label, language, source in (
        ("python trivial", "python", PY_TRIVIAL),
        ("python equals ", "python", PY_EQUALS),
        ("js trivial    ", "javascript", JS_TRIVIAL),
    ):
        wall, inner = per_turn_us(language, source, turns)
        print(
            f"{label}: {wall:7.1f} µs/turn over {TURNS} turns "
            f"(in-child evaluator {inner:6.1f} µs, overhead {wall - inner:6.1f} µs)"
        )
    median, p95 = batch_start_ms()
    print(
        f"batch start (fork + compile + 1 turn, python): median {median:.2f} ms, p95 {p95:.2f} ms"
    )
    for language, source in (("python", PY_RUNAWAY), ("javascript", JS_RUNAWAY)):
        seconds, status = runaway_stop_s(language, source)
        print(f"runaway {language:10} timeout_s=1: stopped after {seconds:.3f} s ({status})")


if __name__ == "__main__":
    main()
