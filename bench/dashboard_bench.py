"""Dashboard benchmark: the pages of an experiment with BENCH_ROWS results (default 1,000,000),
of a compare between two such experiments, and of the experiments list, timed as the server
sees them (Django test client in-process, no network): median and min of BENCH_TIMES requests
after one untimed warm-up (whose time is printed too where it differs: a first view may store
something the next ones read).

    BENCH_ROWS=1000000   items of the evalset version; each experiment scores every one
    BENCH_EVALUATORS=1   evaluators per experiment (results = rows × evaluators)
    BENCH_LIST=1000      further (small, completed) experiments in the workspace, for the list
    BENCH_TIMES=5        timed requests per page
    BENCH_EXPLAIN=1      also print EXPLAIN ANALYZE of the grid's and compare's queries
    BENCH_REUSE=1        time the pages of BENCH_DB as an earlier run left it (no rebuild)
    BENCH_PREPARE=1      forget the stored pairs, then time what the finishing path stores
                         (the candidate's trend flips and default comparison) before the pages;
                         without it the first views below count them themselves

Rows are written by INSERT … SELECT generate_series (PostgreSQL), so a million items and two
million results take about a minute; the results follow a fixed pattern (even rows pass, odd
rows fail, every 13th an error; the candidate regresses on every 50th row and improves on every
100th), so a text search for "missing" matches half the rows, "hedged" about one in a thousand
reasons and "question 4242" 111 rows' cells.

Run as `python bench/dashboard_bench.py` with DATABASE_URL on a PostgreSQL server (scratch
database `assay_bench`, or BENCH_DB's name). Prints figures; asserts nothing.
Target: every page under 300 ms.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.support import (  # noqa: E402
    insert_columns,
    own_peak_rss_mb,
    reset_peak_rss,
    scratch_database,
)

ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))
EVALUATORS = int(os.environ.get("BENCH_EVALUATORS", "1"))
LIST = int(os.environ.get("BENCH_LIST", "1000"))
TIMES = int(os.environ.get("BENCH_TIMES", "5"))
EXPLAIN = os.environ.get("BENCH_EXPLAIN") == "1"
REUSE = os.environ.get("BENCH_REUSE") == "1"
PREPARE = os.environ.get("BENCH_PREPARE") == "1"

ITEMS_SQL = """
INSERT INTO evalsets_evalsetitem ({columns})
SELECT {values} FROM generate_series(%(start)s, %(stop)s - 1) AS g(i)
"""
RESULTS_SQL = """
INSERT INTO experiments_result ({columns})
SELECT {values}
FROM (
    SELECT it.*, it.position + %(offset)s AS s FROM evalsets_evalsetitem it
    WHERE it.evalset_id = %(evalset)s AND it.version_id = %(version)s
) AS it
"""


def main() -> None:
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-bench-")
    database = _reused() if REUSE else scratch_database()
    if not database.startswith("postgres"):
        raise SystemExit("dashboard_bench fills its rows with PostgreSQL's generate_series")
    os.environ["DATABASE_URL"] = database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    bench = built() if REUSE else build()
    print(f"PostgreSQL; {ROWS:,} rows × {EVALUATORS} evaluators = {ROWS * EVALUATORS:,} results")
    print(f"per experiment; two such experiments and {LIST:,} small ones in the workspace")
    print(f"built in {time.perf_counter() - started:.0f} s; load {_load()}")
    launch(bench)
    if PREPARE:
        prepare(bench)
    pages(bench)
    sizes()
    print(f"load {_load()}")


# ----------------------------------------------------------------------------- building


def build() -> dict:
    """The workspace, a version of ROWS items, a baseline and a candidate experiment with
    every result, their aggregates, and LIST small completed experiments."""
    from assay import services as platform
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", owner=user)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(1))
    _phase("items", lambda: _insert_items(version))
    checks = [
        make_code_version(workspace=workspace, user=user, name=f"Check {n}")
        for n in range(EVALUATORS)
    ]
    baseline = _experiment(workspace, user, version, checks, "baseline", candidate=False)
    candidate = _experiment(workspace, user, version, checks, "candidate", candidate=True)
    _phase("analyze", _analyze)
    _phase("aggregates (both)", lambda: [_refresh(e) for e in (baseline, candidate)])
    _phase(f"{LIST:,} list experiments", lambda: _list_experiments(workspace, user, checks[0]))
    _phase("vacuum analyze", _analyze)
    return {"workspace": workspace, "user": user, "baseline": baseline, "candidate": candidate}


def _reused() -> str:
    """BENCH_DB on DATABASE_URL's server, as it is."""
    base = os.environ.get("DATABASE_URL", "")
    return base.rsplit("/", 1)[0] + "/" + os.environ.get("BENCH_DB", "assay_bench")


def built() -> dict:
    """What `build` made, read back from a reused database."""
    from assay.models import Workspace
    from experiments.models import Experiment

    workspace = Workspace.objects.get(name="Bench")
    runs = Experiment.objects.filter(workspace=workspace)
    return {
        "workspace": workspace,
        "user": runs.get(name="baseline").created_by,
        "baseline": runs.get(name="baseline"),
        "candidate": runs.get(name="candidate"),
    }


def _experiment(workspace, user, version, checks, name: str, *, candidate: bool):
    from django.utils import timezone

    from experiments import services
    from experiments.models import Experiment, ExperimentStatus

    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=version,
        bindings=[{"evaluator_version": v} for v in checks],
    )
    bindings = experiment.bindings.order_by("position")
    for offset, binding in enumerate(bindings):
        started = time.perf_counter()
        _insert_results(binding, version, offset, candidate)
        print(f"  {name} results {offset}: {time.perf_counter() - started:.1f} s", flush=True)
    total = ROWS * EVALUATORS
    Experiment.objects.filter(pk=experiment.pk).update(
        status=ExperimentStatus.COMPLETED,
        results_total=total,
        results_done=total,
        items_total=ROWS,
        finished_at=timezone.now(),  # the candidate finishes after the baseline
    )
    experiment.refresh_from_db()
    return experiment


def _phase(label: str, action) -> None:
    started = time.perf_counter()
    action()
    print(f"  {label}: {time.perf_counter() - started:.1f} s", flush=True)


def _insert_items(version) -> None:
    """Rows 1…ROWS-1 after the factory's row 0, in its shape: a question, an answer (even rows
    name Paris, odd rows Lyon), the reference Paris, the tag even or odd."""
    from django.db import connection

    from evalsets.models import EvalSetItem, EvalSetVersion

    answer = "CASE WHEN g.i %% 2 = 0 THEN 'The capital is Paris' ELSE 'The capital is Lyon' END"
    given = {
        "evalset_id": "%(evalset)s",
        "version_id": "%(version)s",
        "item_id": "gen_random_uuid()",
        "position": "g.i",
        "data": f"""jsonb_build_object(
            'input', jsonb_build_object('content_type', 'Text', 'text', 'question ' || g.i),
            'actual_output', jsonb_build_object('content_type', 'Text', 'text', {answer}),
            'reference_output', jsonb_build_object('content_type', 'Text', 'text', 'Paris'))""",
        "tags": "CASE WHEN g.i %% 2 = 0 THEN '[\"even\"]'::jsonb ELSE '[\"odd\"]'::jsonb END",
        "search_text": f"'question ' || g.i || chr(10) || {answer} || chr(10) || 'Paris'",
    }
    columns, values = insert_columns(EvalSetItem, given)
    params = {"evalset": version.evalset_id, "version": version.pk, "start": 1, "stop": ROWS}
    with connection.cursor() as cursor:
        cursor.execute(ITEMS_SQL.format(columns=columns, values=values), params)
        # a version is immutable through the ORM; this one is being built
        table = EvalSetVersion._meta.db_table
        cursor.execute(f"UPDATE {table} SET item_count = %s WHERE id = %s", [ROWS, version.pk])
    version.refresh_from_db()


def _insert_results(binding, version, offset: int, candidate: bool) -> None:
    """One result per item: with s = position + the binding's offset, every 13th s an error,
    even s pass ("contains"), odd s fail ("missing"); one reason in 1009 says "hedged". The
    candidate fails every 50th s and passes every 100th + 1 (its regressions, improvements)."""
    from django.db import connection

    from experiments.models import Result

    error = "it.s %% 13 = 0"
    passed = "it.s %% 2 = 0"
    if candidate:
        passed = f"(({passed} AND it.s %% 50 <> 0) OR it.s %% 100 = 1)"
    verdict = f"CASE WHEN {error} THEN 'unknown' WHEN {passed} THEN 'pass' ELSE 'fail' END"
    reason = f"""CASE WHEN {error} THEN '' WHEN it.s %% 1009 = 7 THEN 'contains, hedged'
        WHEN {passed} THEN 'contains' ELSE 'missing' END"""
    given = {
        "experiment_id": "%(experiment)s",
        "binding_id": "%(binding)s",
        "item_id": "it.id",
        "position": "it.position",
        "tags": "it.tags",
        "status": f"CASE WHEN {error} THEN 'error' ELSE 'success' END",
        "score": f"CASE WHEN {error} THEN NULL WHEN {passed} THEN 1.0 ELSE 0.0 END",
        "verdict": verdict,
        "reason": reason,
        "error": f"CASE WHEN {error} THEN 'ZeroDivisionError: division by zero' ELSE '' END",
        "latency_ms": "1 + it.position %% 7",
    }
    columns, values = insert_columns(Result, given)
    params = {
        "experiment": binding.experiment_id,
        "binding": binding.pk,
        "evalset": version.evalset_id,
        "version": version.pk,
        "offset": offset,
    }
    with connection.cursor() as cursor:
        cursor.execute(RESULTS_SQL.format(columns=columns, values=values), params)


def _list_experiments(workspace, user, check) -> None:
    """LIST completed experiments on a small version, each with one binding and an aggregate
    (a copy of the baseline's summary), written in bulk: the list page reads only these."""
    from experiments.models import Aggregate, EvaluatorBinding, Experiment, ExperimentStatus
    from tests.support.factories import make_evalset_version, qa_rows

    small = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(10), name="Small")
    summary = Aggregate.objects.filter(experiment__name="baseline").first().summary
    runs = Experiment.objects.bulk_create(
        Experiment(
            workspace=workspace,
            name=f"run {n}",
            evalset_version=small,
            status=ExperimentStatus.COMPLETED,
            items_total=10,
            results_total=10,
            results_done=10,
            created_by=user,
        )
        for n in range(LIST)
    )
    bindings = EvaluatorBinding.objects.bulk_create(
        EvaluatorBinding(experiment=e, evaluator_version=check, mapping={}, policy={}) for e in runs
    )
    Aggregate.objects.bulk_create(
        Aggregate(experiment_id=b.experiment_id, binding=b, summary=summary) for b in bindings
    )


def _refresh(experiment) -> None:
    from experiments.results.aggregates import aggregates_refresh

    aggregates_refresh(experiment=experiment)


def _analyze() -> None:
    """Fresh planner statistics and visibility maps, as autovacuum would leave them."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE evalsets_evalsetitem")
        cursor.execute("VACUUM ANALYZE experiments_result")
        cursor.execute("ANALYZE")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# ----------------------------------------------------------------------------- timing


def launch(bench: dict) -> None:
    """The launch request's work (planning a chunk per 1,000 rows) on a draft of the bench's
    version, timed and then rolled back (no run starts)."""
    from django.db import transaction

    from experiments import services

    baseline = bench["baseline"]
    times = []
    for _ in range(TIMES):
        with transaction.atomic():
            draft = services.experiment_create(
                workspace=bench["workspace"],
                user=bench["user"],
                name="bench launch",
                evalset_version=baseline.evalset_version,
                bindings=[
                    {"evaluator_version": b.evaluator_version} for b in baseline.bindings.all()
                ],
            )
            started = time.perf_counter()
            services.experiment_launch(experiment=draft)
            times.append((time.perf_counter() - started) * 1000)
            transaction.set_rollback(True)
    label = "launch (plan the chunks), rolled back"
    print(f"{label:<62} median {statistics.median(times):8.1f} ms   min {min(times):8.1f} ms")


def prepare(bench: dict) -> None:
    """What the candidate's completion stores for its first pages, timed from nothing stored."""
    from experiments.models import PairedComparison
    from experiments.results.compare.prepare import run_pages_prepare

    PairedComparison.objects.all().delete()
    before = reset_peak_rss()
    started = time.perf_counter()
    run_pages_prepare(experiment_id=bench["candidate"].pk)
    elapsed = time.perf_counter() - started
    print(
        f"finishing path: trend flips + default comparison stored in {elapsed:.1f} s; "
        f"RSS {before:.0f} MB before, peak {own_peak_rss_mb():.0f} MB"
    )


def pages(bench: dict) -> None:
    from django.test import Client

    client = Client()
    client.force_login(bench["user"])
    ws, baseline = bench["workspace"].slug, bench["baseline"]
    url = f"/w/{ws}/experiments/{baseline.public_id}/"
    first = baseline.bindings.order_by("position").first()
    # its first view counts the trends' flips between the two runs, then stores them
    timed("experiment page (dashboard + first grid page)", client, url, first=True)
    timed("dashboard partial", client, url + "dashboard/")
    grid(client, url, first)
    other = f"/w/{ws}/experiments/{bench['candidate'].public_id}/"  # its rows come second
    timed("grid of the other run: text, half the rows (q=missing)", client, other + "?q=missing")
    timed("grid of the other run: text in reasons, rare (q=hedged)", client, other + "?q=hedged")
    item = baseline.results.filter(position=ROWS // 2).values_list("item__item_id", flat=True)[0]
    timed("row drawer (every evaluator of one row)", client, f"{url}items/{item}/")
    compare(client, ws, baseline, bench["candidate"])
    timed(f"experiments list ({LIST + 2:,} experiments), page 1", client, f"/w/{ws}/experiments/")
    timed("experiments list, page 20", client, f"/w/{ws}/experiments/?page=20")
    timed("experiments list, status=completed", client, f"/w/{ws}/experiments/?status=completed")
    timed("experiments list's polled table", client, f"/w/{ws}/experiments/rows/")


def grid(client, url: str, first) -> None:
    combined = "?verdict=fail&tag=odd&q=missing"
    timed("grid: verdict, tag, text filters, page=400", client, url + combined + "&page=400")
    keyset(client, url + combined, "grid: the same filters by Next links")
    timed("grid: verdict=fail, page=400", client, url + "?verdict=fail&page=400")
    keyset(client, url + "?verdict=fail", "grid: verdict=fail by Next links")
    timed("grid: tag=odd, page=400", client, url + "?tag=odd&page=400")
    timed("grid: unfiltered, page=400", client, url + "?page=400")
    timed("grid: text in cells, rare (q=question 4242)", client, url + "?q=question+4242")
    timed("grid: text in reasons, rare (q=hedged)", client, url + "?q=hedged")
    timed("grid: text matching nothing (q=zzzz)", client, url + "?q=zzzz")
    timed("grid: text, half the rows (q=missing), page 1", client, url + "?q=missing")
    by_verdict, by_score = f"?sort=verdict:{first.pk}", f"?sort=-score:{first.pk}"
    timed("grid: sorted by verdict (fails first), page=40", client, url + by_verdict + "&page=40")
    keyset(client, url + by_verdict, "grid: sorted by verdict by Next links", clicks=39)
    timed("grid: sorted by score ↓, page=40", client, url + by_score + "&page=40")
    keyset(client, url + by_score, "grid: sorted by score ↓ by Next links", clicks=39)
    fails = f"?evaluator={first.pk}&verdict=fail"
    timed("grid: one evaluator's fails, page=40", client, url + fails + "&page=40")
    keyset(client, url + fails, "grid: one evaluator's fails by Next links", clicks=39)
    if EXPLAIN:
        explain_grid(first.experiment)


NEXT = re.compile(r'<a href="\?([^"]*)"[^>]*>[^<]*(?:Next|下一页)')


def keyset(client, start: str, label: str, clicks: int = 399) -> None:
    """Follow the grid's Next link `clicks` times when it carries a cursor (`after=`), then
    time that page; a tree whose Next link is a page number is timed by `page=` above."""
    body = client.get(start).content.decode()
    found = NEXT.search(body)
    if not found or "after=" not in found.group(1):
        print(f"{label:<62} (no cursor links on this tree)")
        return
    base, clicked = start.split("?")[0], 1
    while clicked < clicks:
        following = NEXT.search(client.get(_link(base, found)).content.decode())
        if following is None:  # fewer pages than that: time the last one
            break
        found, clicked = following, clicked + 1
    timed(f"{label}, page {clicked + 1}", client, _link(base, found))


def _link(base: str, found) -> str:
    return base + "?" + found.group(1).replace("&amp;", "&")


def compare(client, ws: str, baseline, candidate) -> None:
    query = f"?baseline={baseline.public_id}&candidates={candidate.public_id}"
    page = f"/w/{ws}/compare/{query}"
    timed("compare page (metrics, chart, first diff page)", client, page, first=True)
    timed("compare: first page of regressions", client, page + "&filter=regressions", first=True)
    timed("compare: regressions, page 40", client, page + "&filter=regressions&page=40")
    timed(
        "compare API (metrics + first diff page)",
        client,
        f"/api/v1/compare{query}&filter=regressions",
    )


def timed(label: str, client, url: str, *, first: bool = False) -> None:
    started = time.perf_counter()
    _get(client, url)  # warm caches and connections
    cold = (time.perf_counter() - started) * 1000
    times = []
    for _ in range(TIMES):
        started = time.perf_counter()
        _get(client, url)
        times.append((time.perf_counter() - started) * 1000)
    line = f"{label:<62} median {statistics.median(times):8.1f} ms   min {min(times):8.1f} ms"
    print(line + (f"   first {cold:8.1f} ms" if first else ""), flush=True)


def _get(client, url: str) -> None:
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"{url}: HTTP {response.status_code} {response.content[:300]!r}")


# ----------------------------------------------------------------------------- plans


def explain_grid(experiment) -> None:
    """The plans that find rare text (trigram indexes), a keyset page 400 of the combined
    filters, and the drawer's and a compare page's reads of results by position."""
    from experiments.models import Result
    from experiments.results import grid

    items = grid._version_items(experiment)
    explain("text in cells (q=question 4242)", _cells(items, "question 4242"))
    for q in ("hedged", "missing"):
        texts = grid._results_with(experiment, q).order_by("position").values("position")
        explain(f"text in reasons (q={q})", texts[:5001])
    rows, _order = grid.grid_query(experiment=experiment, verdict="fail", tag="odd", q="missing")
    cursor = rows.values_list("grid_pos", flat=True)[19949]
    explain(f"keyset page 400 (after position {cursor})", rows.filter(grid_pos__gt=cursor)[:51])
    middle = Result.objects.filter(experiment=experiment, position=ROWS // 2, repeat=0)
    explain("the drawer's results of one row", middle)
    page = Result.objects.filter(experiment=experiment, position__in=range(0, 25 * 50, 50))
    explain("a compare page's 25 results by position", page)


def _cells(items, q: str):
    return items.filter(search_text__icontains=q).order_by("position").values("position")[:5001]


SIZES_SQL = """
SELECT relname, indexrelname, pg_relation_size(indexrelid) FROM pg_stat_user_indexes
WHERE relname IN ('experiments_result', 'evalsets_evalsetitem') ORDER BY 1, 3 DESC
"""


def sizes() -> None:
    """Each index of the results and items tables, in bytes per row of its table."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(SIZES_SQL)
        found = cursor.fetchall()
        counts = {}
        for table in {table for table, _index, _size in found}:
            cursor.execute(f"SELECT count(*) FROM {table}")
            counts[table] = cursor.fetchone()[0]
    for table, index, size in found:
        per_row = size / max(1, counts[table])
        print(f"  {table}.{index}: {size / 2**20:.1f} MB, {per_row:.1f} bytes a row")


def explain(label: str, queryset) -> None:
    from django.db import connection

    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql, params)
        plan = "\n".join("    " + row[0][:200] for row in cursor.fetchall())
    print(f"EXPLAIN ANALYZE — {label}:\n{plan}")


if __name__ == "__main__":
    main()
