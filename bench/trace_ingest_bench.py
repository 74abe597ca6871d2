"""Trace ingest benchmark: the OpenTelemetry SDK's OTLP/HTTP exporter → `POST /otlp/v1/traces`
on a real web server (gunicorn, as deployed) → a real Celery worker → spans stored on
PostgreSQL.

Each sender is a process of its own with a `BatchSpanProcessor` (batches of 512, as the SDK's
default) around an `OTLPSpanExporter` (protobuf). It first makes its share of the spans with a
tracer — GenAI-convention traffic of a support agent, four spans a trace as `traces/demo.py`
draws it: the agent, a retrieval (OpenInference), a chat call with messages and tokens, a tool
call; one trace in twenty fails — and only then, when every sender is ready, hands them all to
its processor, which exports them back to back: the clock measures Assay, not the making of
spans in the application.

    BENCH_SPANS=50000      spans in all (default 50,000; rounded to whole traces a sender)
    BENCH_SENDERS=2        sender processes (each exports one request at a time)
    BENCH_WEB=2            gunicorn (sync) worker processes
    BENCH_CONCURRENCY=2    Celery worker processes
    BENCH_GZIP=1           the exporter compresses its requests
    BENCH_PROFILE=1        no worker: the endpoint alone takes every request (its rate is
                           printed), then this process stores the queued batches as the
                           task does, under cProfile, and prints spans/s and where it went

Prints: sustained spans/s from the first export's start to the moment the last span is stored
(and, apart, until the last request was answered), the export latency seen by the senders
(p50, p99, max; the protobuf encoding and any retry included), retries, bytes per stored span
on PostgreSQL (the spans table's partitions with their indexes and TOAST, divided by the rows),
the peak memory of the largest web and worker process, and the CPU seconds each part used
while it ran (PostgreSQL and Redis are the machine's rest). Asserts nothing. Needs
DATABASE_URL on a PostgreSQL server (a scratch database, BENCH_DB, default assay_trace_bench)
and redis-server on the PATH (a private one: a shared Redis's other consumers would take the
tasks).
"""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPANS = int(os.environ.get("BENCH_SPANS", "50000"))
SENDERS = int(os.environ.get("BENCH_SENDERS", "2"))
WEB = int(os.environ.get("BENCH_WEB", "2"))
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "2"))
GZIP = os.environ.get("BENCH_GZIP") == "1"
PROFILE = os.environ.get("BENCH_PROFILE") == "1"
SPANS_A_TRACE = 4
WARM_SPANS = 2048  # two senders, two requests each: both web and both pool processes warm
SYSTEM = "You answer customers of an online shop. Look orders up before you answer."


def main() -> None:
    from bench.support import scratch_environment
    from tests.support.processes import RedisServer

    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-trace-bench-")
    os.environ.setdefault("BENCH_DB", "assay_trace_bench")  # not another bench's scratch
    if not scratch_environment():
        raise SystemExit("trace_ingest_bench needs DATABASE_URL on a PostgreSQL server")
    redis = RedisServer().start()
    os.environ["REDIS_URL"] = redis.url
    os.environ["DEBUG"] = "0"  # as deployed: no query log kept per request
    try:
        _run()
    finally:
        redis.kill()


def _run() -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    workspace, key, warm_key = _workspace()
    web, url = _web_start()
    worker = None if PROFILE else _worker_start()
    try:
        print(
            f"PostgreSQL; gunicorn {WEB} workers, Celery {0 if PROFILE else CONCURRENCY} "
            f"processes, {SENDERS} senders, {'gzip' if GZIP else 'uncompressed'} protobuf; "
            f"load average {_load()}"
        )
        _send_all(url, warm_key, WARM_SPANS, senders=2)  # imports, connections, pools warm
        if PROFILE:
            _profile(workspace, url, key)
            return
        _await_stored(None, WARM_SPANS)
        _measure(workspace, url, key, web, worker)
    finally:
        if worker is not None:
            worker.stop()
        web.terminate()
        web.wait(20)


def _workspace():
    """The measured workspace and its ingest key, and another one's key for the warm-up."""
    from assay import services as platform
    from traces.services import ingest_key_issue

    user = platform.user_create(username="trace-bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Trace bench", owner=user)
    warm = platform.workspace_create(name="Trace bench warm-up", owner=user)
    key = ingest_key_issue(workspace=workspace, name="bench").key
    return workspace, key, ingest_key_issue(workspace=warm, name="warm").key


def _web_start() -> tuple[subprocess.Popen, str]:
    """gunicorn serving assay.wsgi on a free port, as `docker/entrypoint.sh` starts it."""
    from tests.support.processes import free_port

    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "assay.wsgi", "--bind", f"127.0.0.1:{port}"]
    command += ["--workers", str(WEB), "--graceful-timeout", "5", "--log-level", "warning"]
    web = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return web, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    web.kill()
    raise SystemExit("gunicorn did not start")


def _worker_start():
    from tests.support.processes import Worker

    worker = Worker(
        database_url=os.environ["DATABASE_URL"],
        redis_url=os.environ["REDIS_URL"],
        concurrency=CONCURRENCY,
    ).start()
    deadline = time.monotonic() + 120
    while " ready." not in worker.output():
        if time.monotonic() > deadline:
            worker.stop()
            raise SystemExit("the worker did not start")
        time.sleep(0.2)
    return worker


def _measure(workspace, url: str, key: str, web, worker) -> None:
    from bench.support import tree_cpu_s

    senders = _senders_ready(url, key, SPANS)
    total = sum(count for _process, count in senders)
    cpu = (tree_cpu_s(web.pid), tree_cpu_s(worker.process.pid), _machine_busy_s())
    for process, _count in senders:
        process.stdin.write("go\n")
        process.stdin.flush()
    stored_at = _await_stored(workspace, total, senders)
    cpu = (
        tree_cpu_s(web.pid) - cpu[0],
        tree_cpu_s(worker.process.pid) - cpu[1],
        _machine_busy_s() - cpu[2],
    )
    results = [_sender_result(process) for process, _count in senders]
    _report(workspace, total, stored_at, results, cpu, web, worker)


def _senders_ready(url: str, key: str, spans: int, senders: int = SENDERS):
    """Sender processes that have made their spans and wait for "go" on stdin; with how many
    spans each sends."""
    share = max(spans // senders // SPANS_A_TRACE, 1) * SPANS_A_TRACE
    started = []
    for _ in range(senders):
        command = [sys.executable, __file__, "send", url, key, str(share)]
        process = subprocess.Popen(
            command, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        started.append((process, share))
    for process, _share in started:
        if process.stdout.readline().strip() != "ready":
            raise SystemExit("a sender did not start")
    return started


def _send_all(url: str, key: str, spans: int, senders: int) -> list[dict]:
    """Send `spans` through `senders` processes at once and wait for their answers."""
    started = _senders_ready(url, key, spans, senders)
    for process, _count in started:
        process.stdin.write("go\n")
        process.stdin.flush()
    return [_sender_result(process) for process, _count in started]


def _sender_result(process) -> dict:
    line = process.stdout.readline()
    process.wait(60)
    if not line:
        raise SystemExit(f"a sender failed (exit {process.returncode})")
    return json.loads(line)


def _await_stored(workspace, count: int, senders=(), timeout_s: float = 900.0) -> float:
    """The wall-clock time (time.time) at which `count` spans of the workspace (any, for
    None) are stored, polled every 50 ms; gives up when the senders are gone and no batch
    waits (a refused export) or after `timeout_s`."""
    from traces.models import Span, SpanBatch

    spans = Span.objects.all() if workspace is None else Span.objects.filter(workspace=workspace)
    deadline = time.monotonic() + timeout_s
    while (stored := spans.count()) < count:
        gone = senders and all(process.poll() is not None for process, _count in senders)
        waiting = SpanBatch.objects.count() if gone or time.monotonic() > deadline else 1
        if (gone and not waiting and spans.count() < count) or time.monotonic() > deadline:
            raise SystemExit(f"{stored:,} of {count:,} spans stored, {waiting} batches waiting")
        time.sleep(0.05)
    return time.time()


def _report(workspace, total, stored_at, results, cpu, web, worker) -> None:
    from bench.support import peak_rss_mb

    first = min(r["first"] for r in results)
    answered = max(r["last"] for r in results) - first
    elapsed = stored_at - first
    latencies = sorted(s for r in results for s in r["exports"])
    failed = sum(r["failed"] for r in results)
    print(
        f"{total:,} spans stored in {elapsed:.2f} s = {total / elapsed:,.0f} spans/s sustained "
        f"(first export → last span stored); every request answered after {answered:.2f} s "
        f"= {total / answered:,.0f} spans/s accepted"
    )
    print(
        f"exports: {len(latencies)} of {total / len(latencies):.0f} spans on average, p50 "
        f"{_pct(latencies, 50):.0f} ms, p99 {_pct(latencies, 99):.0f} ms, max "
        f"{1000 * latencies[-1]:.0f} ms; retries {sum(r['retries'] for r in results)}, "
        f"failed exports {failed}"
    )
    print(f"{_bytes_per_span():.0f} bytes per stored span (partitions + indexes + TOAST)")
    print(
        f"peak RSS: web {peak_rss_mb(web.pid):.0f} MB, worker "
        f"{peak_rss_mb(worker.process.pid):.0f} MB (largest process of each)"
    )
    senders_cpu = sum(r["cpu"] for r in results)
    rest = cpu[2] - cpu[0] - cpu[1] - senders_cpu
    print(
        f"CPU while it ran ({elapsed:.1f} s × 2 cores = {2 * elapsed:.0f} s): web {cpu[0]:.1f} s,"
        f" worker {cpu[1]:.1f} s, senders {senders_cpu:.1f} s, the rest (PostgreSQL, Redis, "
        f"other processes) {rest:.1f} s; load average {_load()}"
    )


def _profile(workspace, url: str, key: str) -> None:
    """The endpoint alone (no worker takes the batches), then every queued batch of the
    workspace stored here as the task stores it, under cProfile."""
    import cProfile

    from traces.models import SpanBatch
    from traces.services import span_batch_store

    results = _send_all(url, key, SPANS, SENDERS)
    first, last = min(r["first"] for r in results), max(r["last"] for r in results)
    batches = SpanBatch.objects.filter(workspace=workspace).values_list("pk", flat=True)
    queued = sum(SpanBatch.objects.filter(workspace=workspace).values_list("span_count", flat=True))
    print(
        f"endpoint alone: {queued:,} spans queued in {last - first:.2f} s = "
        f"{queued / (last - first):,.0f} spans/s"
    )
    profiler, stored, started = cProfile.Profile(), 0, time.perf_counter()
    for batch_id in list(batches):
        profiler.enable()
        stored += span_batch_store(batch_id=batch_id)
        profiler.disable()
    elapsed = time.perf_counter() - started
    print(
        f"storing in one process: {stored:,} spans in {elapsed:.2f} s = "
        f"{stored / elapsed:,.0f} spans/s (profiled); {_bytes_per_span():.0f} bytes a span"
    )
    _print_profile(profiler)


def _print_profile(profiler) -> None:
    """Functions by cumulative time (callees included) at 2 % or more, largest first."""
    import pstats

    stats = pstats.Stats(profiler).stats
    total = sum(tottime for _cc, _calls, tottime, _cum, _callers in stats.values())
    rows = [
        (cumulative, calls, f"{'/'.join(Path(file).parts[-2:])}:{name}")
        for (file, _line, name), (_cc, calls, _tt, cumulative, _callers) in stats.items()
        if cumulative >= 0.02 * total
    ]
    for cumulative, calls, label in sorted(rows, reverse=True)[:40]:
        print(f"  {label:60} {calls:8} calls {cumulative:7.3f} s {cumulative / total:6.1%}")


def _pct(ordered: list[float], percent: int) -> float:
    return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * percent / 100))]


def _bytes_per_span() -> float:
    """traces_span's partitions with their indexes and TOAST, divided by its rows (the
    warm-up's included on both sides)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(sum(pg_total_relation_size(i.inhrelid)), 0) FROM pg_inherits i "
            "WHERE i.inhparent = 'traces_span'::regclass"
        )
        size = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM traces_span")
        return size / max(cursor.fetchone()[0], 1)


def _machine_busy_s() -> float:
    """CPU seconds every core of the machine spent busy so far (/proc/stat: all but idle
    and iowait)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


# ------------------------------------------------------------------------------ a sender


class _Timed:
    """The real exporter, each export timed (the protobuf encoding and retries included)."""

    def __init__(self, exporter) -> None:
        self.exporter, self.exports, self.failed = exporter, [], 0
        self.first = self.last = 0.0

    def export(self, spans):
        from opentelemetry.sdk.trace.export import SpanExportResult

        started = time.time()
        self.first = self.first or started
        result = self.exporter.export(spans)
        self.last = time.time()
        self.exports.append(self.last - started)
        self.failed += result is not SpanExportResult.SUCCESS
        return result

    def shutdown(self) -> None:
        self.exporter.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class _Retries(logging.Handler):
    """Counts the exporter's "retrying" warnings (a 429 or 503 answered)."""

    count = 0

    def emit(self, record) -> None:
        if "retrying" in record.getMessage():
            _Retries.count += 1


def send(url: str, key: str, count: int) -> None:
    """Make `count` spans, say "ready", wait for "go", export them all through a
    BatchSpanProcessor and print what happened as one JSON line."""
    from opentelemetry.exporter.otlp.proto.http import Compression
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    spans = _spans_made(count)
    exporter = OTLPSpanExporter(
        endpoint=f"{url}/otlp/v1/traces",
        headers={"Authorization": f"Bearer {key}"},
        timeout=60,
        compression=Compression.Gzip if GZIP else Compression.NoCompression,
    )
    timed = _Timed(exporter)
    processor = BatchSpanProcessor(timed, max_queue_size=count + 1, max_export_batch_size=512)
    logging.getLogger("opentelemetry").addHandler(_Retries())
    print("ready", flush=True)
    sys.stdin.readline()
    cpu = time.process_time()
    for span in spans:
        processor.on_end(span)
    processor.force_flush()
    processor.shutdown()
    result = {"first": timed.first, "last": timed.last, "exports": timed.exports}
    result.update(failed=timed.failed, retries=_Retries.count, cpu=time.process_time() - cpu)
    print(json.dumps(result), flush=True)


def _spans_made(count: int) -> list:
    """`count` ended spans (whole traces), kept by a processor that only keeps them."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

    class Kept(SpanProcessor):
        def __init__(self) -> None:
            self.spans: list = []

        def on_end(self, span) -> None:
            self.spans.append(span)

    resource = Resource.create(
        {"service.name": "bench-support-agent", "deployment.environment.name": "bench"}
    )
    provider = TracerProvider(resource=resource)
    kept = Kept()
    provider.add_span_processor(kept)
    tracer = provider.get_tracer("bench")
    for number in range(count // SPANS_A_TRACE):
        _trace(tracer, number)
    return kept.spans


def _trace(tracer, number: int) -> None:
    """One customer turn: the agent, its retrieval, its model call and its tool call."""
    from opentelemetry.trace import Status, StatusCode

    session = f"session-{os.getpid()}-{number // 3}"
    order = str(1000 + number)
    question = f"Where is my order {order}? I ordered it {number % 9 + 2} days ago."
    answer = f"Order {order} has shipped and arrives on Friday; the tracking number is T{number}."
    with tracer.start_as_current_span("invoke_agent support") as agent:
        agent.set_attributes({"gen_ai.operation.name": "invoke_agent"})
        agent.set_attribute("gen_ai.conversation.id", session)
        with tracer.start_as_current_span("retrieve policies") as retrieval:
            retrieval.set_attributes(_retrieval(question, session))
        with tracer.start_as_current_span("chat qwen2.5:7b") as chat:
            chat.set_attributes(_chat(question, answer, session))
        with tracer.start_as_current_span("execute_tool get_order") as tool:
            tool.set_attributes(_tool(order, session))
            if number % 20 == 19:
                tool.set_attribute("error.type", "TimeoutError")
                tool.set_status(Status(StatusCode.ERROR, "order service timed out after 5 s"))


def _retrieval(question: str, session: str) -> dict:
    return {
        "openinference.span.kind": "RETRIEVER",
        "session.id": session,
        "input.value": question,
        "retrieval.documents.0.document.content": "Orders ship within 2 days.",
        "retrieval.documents.1.document.content": "Shipped orders cannot be edited.",
    }


def _chat(question: str, answer: str, session: str) -> dict:
    messages = [{"role": "user", "parts": [{"type": "text", "content": question}]}]
    output = [{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]
    return {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "qwen2.5:7b",
        "gen_ai.conversation.id": session,
        "gen_ai.system_instructions": json.dumps([{"type": "text", "content": SYSTEM}]),
        "gen_ai.input.messages": json.dumps(messages),
        "gen_ai.output.messages": json.dumps(output),
        "gen_ai.usage.input_tokens": 180 + 7 * len(question),
        "gen_ai.usage.output_tokens": 4 * len(answer.split()),
    }


def _tool(order: str, session: str) -> dict:
    return {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.conversation.id": session,
        "gen_ai.tool.name": "get_order",
        "gen_ai.tool.call.arguments": json.dumps({"order_id": order}),
        "gen_ai.tool.call.result": json.dumps({"status": "shipped", "arrives": "Friday"}),
    }


if __name__ == "__main__":
    if sys.argv[1:2] == ["send"]:
        send(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        main()
