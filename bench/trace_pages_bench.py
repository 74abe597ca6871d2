"""Trace pages benchmark: the traces list, a trace, sessions and a session answered over a
store of 10⁷ spans on PostgreSQL.

It makes a scratch database (BENCH_DB, default `assay_bench_traces`), migrates it, and fills
the day-partitioned spans table and the per-trace summaries with COPY: rows made in Python as
text and streamed in chunks (no ORM, no per-row round trip). The traffic is a support agent's,
four spans a trace (agent root, retrieval, chat with tokens, cost and messages' texts, tool),
one trace in twenty failing, five traces a session, spread evenly over the last 30 days; raw
attributes with a tenant id. The summaries hold what the worker's upsert makes of those spans
(`traces/ingest/summaries.py`; `tests/traces/test_summary.py` checks that path).

Then, through Django's test client signed in as a member (the whole view: query, template),
after one untimed first request (printed apart: the process's URLs and templates loading, a
cold cache), it times each page BENCH_REPEAT times (default 15) and prints median and p95 in ms:
the traces list's first page (default range: 24 hours), a filtered page, sorted pages, a deep
page (after following `next` BENCH_DEEP pages, default 200), an attribute filter, the
sessions list, a session and a trace; and the API's traces and spans lists. The database is
dropped at the end (BENCH_KEEP=1 keeps it; BENCH_REUSE=1 then times a kept one again).

    BENCH_SPANS=10000000   spans (a multiple of 4)
    DATABASE_URL=postgres://…/assay   the server (the scratch database is made beside it)
"""

from __future__ import annotations

import io
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SPANS = int(os.environ.get("BENCH_SPANS", "10000000"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "15"))
DEEP = int(os.environ.get("BENCH_DEEP", "200"))
REUSE = os.environ.get("BENCH_REUSE") == "1"
DAYS = 30
SERVICES = ["support-agent", "billing-agent", "search-api", "checkout", "notifier"]
MODELS = ["gpt-4o-mini", "claude-3-5-haiku", "qwen2.5-7b"]
ENVIRONMENTS = ["production", "staging"]
CHUNK = 20_000  # traces per COPY write


def main() -> None:
    os.environ.setdefault("BENCH_DB", "assay_bench_traces")
    if REUSE:  # time again the pages of a kept database (BENCH_KEEP=1 before)
        base = os.environ["DATABASE_URL"].rsplit("/", 1)[0]
        os.environ["DATABASE_URL"] = f"{base}/{os.environ['BENCH_DB']}"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    else:
        from bench.support import scratch_environment

        if not scratch_environment():
            raise SystemExit("DATABASE_URL must name a PostgreSQL server")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    try:
        if REUSE:
            _time_pages(*_workspace_kept())
            return
        workspace, user = _workspace()
        started = time.perf_counter()
        _fill(workspace.pk)
        print(f"filled {SPANS:,} spans in {time.perf_counter() - started:.0f} s; {_sizes()}")
        _time_pages(workspace, user)
    finally:
        _drop()


def _workspace_kept():
    from django.contrib.auth import get_user_model

    from assay.models import Workspace

    return Workspace.objects.get(slug="bench"), get_user_model().objects.get(username="bench")


def _workspace():
    from django.contrib.auth import get_user_model

    from assay.models import Membership, Workspace

    user = get_user_model().objects.create_user("bench", password="x" * 12)
    workspace = Workspace.objects.create(name="Bench", slug="bench")
    Membership.objects.create(workspace=workspace, user=user, role=Membership.Role.OWNER)
    return workspace, user


# ----------------------------------------------------------------------------- filling


def _fill(workspace_id: int) -> None:
    from django.db import connection, transaction

    from traces.ingest.storing import COLUMNS, partitions_ensure
    from traces.ingest.summaries import SUMMARY_COLUMNS

    now = datetime.now(UTC)
    with transaction.atomic():
        partitions_ensure(days={(now - timedelta(days=d)).date() for d in range(-1, DAYS + 1)})
    now = now.timestamp()
    traces = SPANS // 4
    rng = random.Random(7)
    with connection.cursor() as cursor:
        for first in range(0, traces, CHUNK):
            spans, summaries = io.StringIO(), io.StringIO()
            for n in range(first, min(first + CHUNK, traces)):
                _trace(n, workspace_id, now, rng, spans, summaries)
            with cursor.copy(f"COPY traces_span ({', '.join(COLUMNS)}) FROM STDIN") as copy:
                copy.write(spans.getvalue())
            with cursor.copy(f"COPY traces_tracesummary ({SUMMARY_COLUMNS}) FROM STDIN") as copy:
                copy.write(summaries.getvalue())
            if first // CHUNK % 25 == 0:
                print(f"  {min(first + CHUNK, traces) * 4:,} spans", flush=True)
        cursor.execute("ANALYZE traces_span")
        cursor.execute("ANALYZE traces_tracesummary")


def _ts(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat(" ")


def _trace(n: int, workspace_id: int, now: float, rng, spans, summaries) -> None:
    """One trace's four spans and its summary, as COPY text lines (f-strings: 10⁷ of them)."""
    start = now - rng.random() * DAYS * 86400 + 60
    trace_id = f"{n:032x}"
    service, model = SERVICES[n % 5], MODELS[n % 3]
    session, user, environment = f"session-{n // 5}", f"user-{n // 50}", ENVIRONMENTS[n % 7 == 0]
    failed = n % 20 == 3  # 1 in 20, spread over the services
    tokens_in, tokens_out = 200 + n % 900, 20 + n % 300
    cost = (tokens_in * 0.15 + tokens_out * 0.6) / 1e6
    question = f"Where is my order {n}? It was due on Monday and the tracking page says nothing."
    answer = f"Order {n} left the warehouse yesterday; it should arrive within two days."
    duration = 2400 + (rng.random() * 3000 if failed else rng.random() * 400)
    steps = (  # (span id, parent, name, kind, offset ms, duration ms, model, in, out, tokens)
        (1, "", "support turn", "agent", 0, duration, "", question, answer, None),
        (2, "1", "search orders", "retriever", 20, 180, "", question, f"order {n}: shipped", None),
        (3, "1", "chat", "llm", 220, 1900, model, question, answer, (tokens_in, tokens_out)),
        (4, "1", "lookup_tracking", "tool", 2150, 230, "", f'{{"order": {n}}}', "in transit", None),
    )
    head = f"{workspace_id}\t{trace_id}\t"
    tail = f"{session}\t{user}\t{environment}\t"
    received = _ts(now)
    for span_id, parent, name, kind, offset, ms, span_model, said, out, tokens in steps:
        begin = start + offset / 1000
        error = "TimeoutError: tracking service" if failed and span_id == 4 else ""
        usage = f"{tokens[0]}\t{tokens[1]}\t{cost:.8f}" if tokens else "\\N\t\\N\t\\N"
        attrs = f'{{"app.tenant": "t{n % 100}", "app.step": "{name}", "app.version": "1.4"}}'
        spans.write(
            f"{head}000000000000000{span_id}\t{'00000000000000' + '0' + parent if parent else ''}"
            f"\t{name}\t{service}\t{kind}\t{span_model}\t{said}\t{out}\t\\N\t\\N\t{usage}"
            f"\t{tail}{'error' if error else 'ok'}\t{error}\t{_ts(begin)}"
            f"\t{_ts(begin + ms / 1000)}\t{ms:.3f}\t{attrs}\t{received}\n"
        )
    summaries.write(
        f"{head}t\tsupport turn\t{service}\t{environment}\t{session}\t{user}\t{_ts(start)}"
        f"\t{_ts(start + duration / 1000)}\t{duration:.3f}\t4\t{int(failed)}\t{tokens_in}"
        f"\t{tokens_out}\t{tokens_in + tokens_out}\t{cost:.8f}\t|{model}|"
        f"\t|agent|llm|retriever|tool|\n"
    )


def _sizes() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_inherits i "
            "JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'traces_span'::regclass"
        )
        spans = int(cursor.fetchone()[0])
        cursor.execute("SELECT pg_total_relation_size('traces_tracesummary')")
        summaries = cursor.fetchone()[0]
    per_span = spans / SPANS
    gb = summaries / 1e9
    return f"spans {spans / 1e9:.1f} GB ({per_span:.0f} B a span), summaries {gb:.2f} GB"


# ----------------------------------------------------------------------------- timing


def _time_pages(workspace, user) -> None:
    from django.test import Client

    from traces.models import TraceSummary

    client = Client()
    client.force_login(user)
    base = f"/w/{workspace.slug}/traces/"
    recent = TraceSummary.objects.filter(workspace=workspace).order_by("-start_time").first()
    pages = {
        "traces, first page (24 h)": (base, {}),
        "traces, filtered (service, errors, kind, 7 d)": (
            base,
            {"service": "checkout", "has_error": "yes", "kind": "tool", "range": "7d"},
        ),
        "traces, sorted by duration (24 h)": (base, {"sort": "-duration"}),
        "traces, sorted by cost (30 d)": (base, {"sort": "-cost", "range": "30d"}),
        "traces, model and min tokens (30 d)": (
            base,
            {"model": "qwen2.5-7b", "min_tokens": "1100", "range": "30d"},
        ),
        "traces, attribute app.tenant=t42 (24 h)": (base, {"attribute": "app.tenant=t42"}),
        "traces, a session's traces (30 d)": (base, {"session": recent.session_id, "range": "30d"}),
        f"traces, page {DEEP + 1} (30 d)": (base, _deep({"range": "30d"})),
        "sessions, first page (24 h)": (f"{base}sessions/", {}),
        "sessions, first page (7 d)": (f"{base}sessions/", {"range": "7d"}),
        "a session": (f"{base}sessions/{recent.session_id}/", {}),
        "a trace": (f"{base}{recent.trace_id}/", {}),
        "API traces, first page (30 d)": ("/api/v1/traces/", {"range": "30d"}),
        "API spans, first page (24 h)": ("/api/v1/spans/", {"range": "24h"}),
    }
    started = time.perf_counter()
    client.get(base)  # the process's first request (URLs, templates) and a cold cache
    print(f"first request after start: {(time.perf_counter() - started) * 1000:.0f} ms")
    print(f"\n{'page':<48} {'median ms':>10} {'p95 ms':>8}")
    for label, (url, query) in pages.items():
        headers = {"HTTP_X_ASSAY_WORKSPACE": workspace.slug} if url.startswith("/api/") else {}
        times = []
        for _ in range(REPEAT):
            started = time.perf_counter()
            answer = client.get(url, query, **headers)
            times.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200, (label, answer.status_code, answer.content[:300])
        p95 = statistics.quantiles(times, n=20)[-1]
        print(f"{label:<48} {statistics.median(times):>10.0f} {p95:>8.0f}", flush=True)


def _deep(query: dict) -> dict:
    """The query of the page after following `next` DEEP times (its cursor: the last row of
    page DEEP, found here once by an offset; the page itself reads from the cursor on)."""
    from traces import selectors
    from traces.models import TraceSummary
    from traces.reading.keyset import cursor_encode

    since = datetime.now(UTC) - timedelta(days=30)
    rows = TraceSummary.objects.filter(start_time__gte=since).order_by("-start_time", "-trace_id")
    last = rows[DEEP * 50 - 1]
    return {**query, "cursor": cursor_encode(last, selectors.trace_order(""))}


def _drop() -> None:
    if os.environ.get("BENCH_KEEP"):
        return
    import psycopg
    from django.db import connections

    connections.close_all()
    url = os.environ["DATABASE_URL"]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {os.environ['BENCH_DB']} WITH (FORCE)")
    print("dropped the scratch database")


if __name__ == "__main__":
    main()
