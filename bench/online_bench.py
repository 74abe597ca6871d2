"""Online evaluation benchmark: live spans swept and scored by a real Celery worker (with beat,
as deployed), then a judge's backlog through the online kind of run.

1. Live traffic: spans are stored at BENCH_RATE a second (default 1,000) for BENCH_SECONDS
   (default 60) through the store's own insert (`traces.ingest.storing.rows_insert`: COPY on
   PostgreSQL, the summaries kept; the OTLP endpoint in front of it is trace_ingest_bench's),
   while a 10 % span rule with a Python code evaluator is swept by beat every
   ASSAY_ONLINE_SWEEP_S. Prints the span → score delay after readiness (an outcome's creation
   minus its span's storing plus the sweep's lag), p50 and p95 (goal p95 < 30 s), the sampled
   share and the outcomes.
2. The judge path: BENCH_JUDGE_ITEMS (default 2,000) stored spans backfilled by a rule at 100 %
   with an LLM judge on the suite's scripted OpenAI-compatible server (200 ms an answer,
   concurrency 64): launch → completed against the ideal (items / 64 × 0.2 s), as
   llm_bench measures experiments: each of BENCH_JUDGE_RUNS runs (default 3; a new rule on
   its own spans each) with its timeline, then the median.

Needs DATABASE_URL on a PostgreSQL server (a scratch database, BENCH_DB, default
assay_online_bench) and redis-server on the PATH (a private one). Asserts nothing.
"""

from __future__ import annotations

import os
import secrets
import sys
import tempfile
import threading
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RATE = int(os.environ.get("BENCH_RATE", "1000"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "60"))
JUDGE_ITEMS = int(os.environ.get("BENCH_JUDGE_ITEMS", "2000"))
JUDGE_RUNS = int(os.environ.get("BENCH_JUDGE_RUNS", "3"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "2"))
JUDGE_CONCURRENCY = 64
LATENCY_S = 0.2
SAMPLING = 0.1


def main() -> None:
    from bench.support import scratch_environment
    from tests.support.processes import RedisServer

    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-online-bench-")
    os.environ.setdefault("BENCH_DB", "assay_online_bench")
    if not scratch_environment():
        raise SystemExit("online_bench needs DATABASE_URL on a PostgreSQL server")
    redis = RedisServer().start()
    os.environ["REDIS_URL"] = redis.url
    os.environ["DEBUG"] = "0"
    try:
        _run()
    finally:
        redis.kill()


def _run() -> None:
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    from bench.llm_bench import judge_workspace, start_server
    from tests.support.processes import Worker

    call_command("migrate", verbosity=0)
    server, port = start_server(LATENCY_S)
    worker = Worker(
        database_url=os.environ["DATABASE_URL"],
        redis_url=os.environ["REDIS_URL"],
        concurrency=CONCURRENCY,
        beat=True,
    ).start()
    try:
        _await_ready(worker)
        print(
            f"PostgreSQL; Celery {CONCURRENCY} processes with beat; sweep every "
            f"{settings.ASSAY_ONLINE_SWEEP_S} s, lag {settings.ASSAY_ONLINE_SWEEP_LAG_S} s; "
            f"load average {_load()}"
        )
        workspace, user, judge, _client = judge_workspace(port, "online")
        _live(workspace, user)
        _judge_backlogs(workspace, user, judge, port)
    finally:
        worker.stop()
        server.terminate()


def _await_ready(worker) -> None:
    deadline = time.monotonic() + 120
    while " ready." not in worker.output():
        if time.monotonic() > deadline:
            raise SystemExit("the worker did not start")
        time.sleep(0.2)


# ----------------------------------------------------------------------------- live traffic


def _live(workspace, user) -> None:
    from django.conf import settings

    from online.models import OnlineOutcome, RuleStratum
    from tests.online.support import code_rule

    rule = code_rule(workspace, user, sampling_rate=SAMPLING)
    began = time.monotonic()
    stored = _store_at_rate(workspace, RATE, SECONDS)
    achieved = stored / (time.monotonic() - began)
    expected = sum(RuleStratum.objects.filter(rule=rule).values_list("sampled", flat=True))
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        expected = sum(RuleStratum.objects.filter(rule=rule).values_list("sampled", flat=True))
        swept = rule.runs.exists() and _swept_all(rule, stored)
        if swept and OnlineOutcome.objects.filter(rule=rule).count() >= expected:
            break
        time.sleep(1)
    lag = timedelta(seconds=settings.ASSAY_ONLINE_SWEEP_LAG_S)
    delays = _delays(rule, lag)
    print(
        f"live: {stored:,} spans at {RATE:,}/s for {SECONDS} s ({achieved:,.0f}/s achieved); "
        f"rule at {SAMPLING:.0%} with a "
        f"code evaluator: {len(delays):,} scored of {expected:,} sampled "
        f"({expected / max(stored, 1):.1%} of the spans)"
    )
    if delays:
        print(
            f"  span → score after readiness: p50 {_pct(delays, 50):.1f} s, "
            f"p95 {_pct(delays, 95):.1f} s, max {delays[-1]:.1f} s (goal p95 < 30 s)"
        )


def _store_at_rate(workspace, rate: int, seconds: int) -> int:
    """Store `rate` spans each second for `seconds`, in a thread of this process."""
    from django.db import connection

    stored = [0]

    def run() -> None:
        start = time.monotonic()
        for second in range(seconds):
            _store(workspace, rate)
            stored[0] += rate
            pause = start + second + 1 - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return stored[0]


def _store(workspace, count: int) -> None:
    from django.db import transaction
    from django.utils import timezone

    from tests.online.support import llm_span
    from traces.ingest.storing import rows_insert

    now = timezone.now()
    spans = [
        llm_span(workspace, output="The parcel arrives today.", expected="parcel", at=now)
        for _ in range(count)
    ]
    with transaction.atomic():  # as the storing task does (its staging table lives in it)
        rows_insert(spans)


def _swept_all(rule, stored: int) -> bool:
    from online.models import RuleStratum

    return sum(RuleStratum.objects.filter(rule=rule).values_list("eligible", flat=True)) >= stored


def _delays(rule, lag) -> list[float]:
    from online.models import OnlineOutcome
    from traces.models import Span

    outcomes = dict(
        ((t, s), created)
        for t, s, created in OnlineOutcome.objects.filter(rule=rule).values_list(
            "trace_id", "span_id", "created_at"
        )
    )
    received = Span.objects.filter(span_id__in=[s for _t, s in outcomes]).values_list(
        "trace_id", "span_id", "received_at"
    )
    return sorted(
        max((outcomes[(t, s)] - (at + lag)).total_seconds(), 0.0)
        for t, s, at in received
        if (t, s) in outcomes
    )


# ----------------------------------------------------------------------------- the judge


def _judge_backlogs(workspace, user, judge, port: int) -> None:
    from bench.support import median

    ideal = JUDGE_ITEMS / JUDGE_CONCURRENCY * LATENCY_S
    seconds = [_judge_backlog(workspace, user, judge, port, run) for run in range(JUDGE_RUNS)]
    best = median(seconds)
    print(
        f"judge path median of {len(seconds)}: {best:.2f} s; ideal {ideal:.2f} s = "
        f"{ideal / best:.1%} of ideal"
    )


def _judge_backlog(workspace, user, judge, port: int, number: int) -> float:
    """One backfill of a new rule over its own stored spans (hours before the live traffic,
    an hour apart from the other runs'): its launch → completed seconds, printed."""
    from django.db import transaction
    from django.utils import timezone

    from bench.llm_bench import in_flight, server_stats
    from bench.support import run_timeline
    from online.models import OnlineRule
    from online.services import online_backfill, online_rule_create
    from tests.online.support import llm_span
    from traces.ingest.storing import rows_insert

    past = timezone.now() - timedelta(hours=2 + number)  # before the live traffic
    questions = [(f"Q{i}-{secrets.token_hex(4)}?", f"A{i}") for i in range(JUDGE_ITEMS)]
    spans = [
        llm_span(workspace, output=answer, expected="x", at=past, input_text=question)
        for question, answer in questions
    ]
    with transaction.atomic():  # as the storing task does (its staging table lives in it)
        rows_insert(spans)
    rule = online_rule_create(
        workspace=workspace,
        user=user,
        fields={
            "name": f"judge backlog {number + 1}",
            "sampling_rate": 1.0,
            "concurrency": JUDGE_CONCURRENCY,
        },
        evaluators=[
            {
                "evaluator_version": judge,
                "mapping": {"question": "span:input", "answer": "span:output"},
            }
        ],
    )
    OnlineRule.objects.filter(pk=rule.pk).update(active=False)  # the backlog only, no sweep
    rule.refresh_from_db()
    server_stats(port, reset=True)
    _estimate, run = online_backfill(
        rule=rule, since=past - timedelta(minutes=1), until=past + timedelta(minutes=1), start=True
    )
    run = _await_finished(run)
    elapsed = (run.finished_at - run.queued_at).total_seconds()
    ideal = JUDGE_ITEMS / JUDGE_CONCURRENCY * LATENCY_S
    stats = server_stats(port)
    print(
        f"judge run {number + 1}: {JUDGE_ITEMS:,} items, LLM judge at {LATENCY_S * 1000:.0f} ms, "
        f"concurrency {JUDGE_CONCURRENCY}: launch → {run.status} in {elapsed:.2f} s; ideal "
        f"{ideal:.2f} s = {ideal / elapsed:.1%} of ideal; {run.results_done:,} outcomes\n"
        f"  the provider: {in_flight(stats, JUDGE_CONCURRENCY)}\n"
        f"  {run_timeline(run, stats['first_at'], stats['last_at'])}"
    )
    return elapsed


def _await_finished(run):
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        run.refresh_from_db()
        if run.finished_at is not None:
            return run
        time.sleep(0.05)
    raise SystemExit(f"the judge run did not finish ({run.results_done} outcomes)")


def _pct(ordered: list[float], percent: int) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * percent / 100))]


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


if __name__ == "__main__":
    main()
