"""Aggregates benchmark: `aggregates_refresh` of one code-check binding with BENCH_ROWS results
(default 1,000,000) — wall time and how much the process's resident memory grows while it runs.

    BENCH_ROWS=1000000   results of the binding (items × repetitions)
    BENCH_REPEATS=3      repetitions per item (default 1): BENCH_ROWS / 3 items, intervals
                         clustered by item
    BENCH_TIMES=3        timed refreshes (after a first, cold one)

The rows are written by two INSERT … SELECT generate_series statements (items, then results)
with the tables' secondary indexes built afterwards, so a million take well under a minute:
a realistic code check's mix — 3 % errors, 0.5 % timeouts, 2 % unscored, scores mostly 0/1
with a quarter fractional, one or two tags a row from six, latencies of a few ms, a human
correction every 997th row.

Memory: before each refresh the kernel's peak (VmHWM) is reset (`/proc/self/clear_refs`), so
the peak after it, less the resident size before, is what the refresh added; a last run under
tracemalloc gives the traced Python and numpy peak. Run as `python bench/aggregates_bench.py`
with DATABASE_URL on a PostgreSQL server (scratch database `assay_bench_aggregates`, or
BENCH_DB's name; without one it says so and stops). Prints figures; asserts nothing.
"""

from __future__ import annotations

import gc
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.support import insert_columns, scratch_database  # noqa: E402

ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "1"))
TIMES = int(os.environ.get("BENCH_TIMES", "3"))
TAGS = ("geo", "math", "code", "chat", "safety")

ITEMS_SQL = """
INSERT INTO evalsets_evalsetitem ({columns})
SELECT {values} FROM generate_series(%(start)s, %(stop)s - 1) AS g(i)
"""
# Indexes that no constraint owns (the key and unique constraints stay while loading).
SECONDARY_INDEXES = """
SELECT i.indexname, i.indexdef FROM pg_indexes i
WHERE i.schemaname = current_schema() AND i.tablename = %s
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
"""
RESULTS_SQL = """
INSERT INTO experiments_result ({columns})
SELECT {values}
FROM (
    SELECT it.*, g.rep, ((it.position * 7919 + g.rep * 104729) %% 1000) AS u
    FROM evalsets_evalsetitem it CROSS JOIN generate_series(0, %(repeats)s - 1) AS g(rep)
    WHERE it.evalset_id = %(evalset)s AND it.version_id = %(version)s
) AS it
"""


def main() -> None:
    os.environ.setdefault("BENCH_DB", "assay_bench_aggregates")
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-bench-")
    database = scratch_database()
    if not database:
        # `make bench` goes on to the next bench: this one is about PostgreSQL at 10⁶ rows
        print("aggregates_bench: skipped, it needs DATABASE_URL on a PostgreSQL server")
        return
    os.environ["DATABASE_URL"] = database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    experiment = build()
    items = ROWS // REPEATS
    print(f"PostgreSQL; {items:,} items × {REPEATS} repetitions = {items * REPEATS:,} results")
    print(f"built in {time.perf_counter() - started:.1f} s; load: {_load()}")
    measure(experiment)


def build():
    """A workspace, a one-row version grown to BENCH_ROWS / BENCH_REPEATS items, an experiment
    with one code check, and its results, written directly: this measures the aggregates."""
    from assay import services as platform
    from experiments import services
    from experiments.models import Experiment, ExperimentStatus
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", owner=user)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(1))
    check = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="aggregates bench",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        repetitions=REPEATS,
    )
    items = ROWS // REPEATS
    with _bulk_load("evalsets_evalsetitem"):
        _phase("items", lambda: _insert_items(version, start=1, stop=items))
    with _bulk_load("experiments_result"):
        _phase("results", lambda: _insert_results(experiment, version))
    Experiment.objects.filter(pk=experiment.pk).update(
        status=ExperimentStatus.COMPLETED,
        items_total=items,
        results_total=items * REPEATS,
        results_done=items * REPEATS,
    )
    _phase("vacuum analyze", _analyze)
    experiment.refresh_from_db()
    return experiment


@contextmanager
def _bulk_load(table: str):
    """Load `table` as a restore would: its secondary indexes dropped and built again after
    (a sort instead of a random index write a row) and foreign-key triggers off (the rows
    reference what build() made) — a minute at 10⁶ rows becomes seconds."""
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(SECONDARY_INDEXES, [table])
        indexes = cursor.fetchall()
        for name, _definition in indexes:
            cursor.execute(f'DROP INDEX "{name}"')
        cursor.execute("SET LOCAL session_replication_role = replica")
        yield
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")
        started = time.perf_counter()
        for _name, definition in indexes:
            cursor.execute(definition)
        print(f"  {len(indexes)} indexes of {table}: {time.perf_counter() - started:.1f} s")


def _phase(label: str, action) -> None:
    started = time.perf_counter()
    action()
    print(f"  {label}: {time.perf_counter() - started:.1f} s")


def _insert_items(version, *, start: int, stop: int) -> None:
    """The version's rows start…stop-1, each with one or two of the benchmark's tags."""
    from django.db import connection

    from evalsets.models import EvalSetItem

    tags = "ARRAY[{}]".format(", ".join(f"'{t}'" for t in TAGS))
    given = {
        "evalset_id": "%(evalset)s",
        "version_id": "%(version)s",
        # ordered ids: random ones make the unique index write a random page a row
        "item_id": "lpad(to_hex(g.i), 32, 'a')::uuid",
        "position": "g.i",
        "data": """jsonb_build_object('input', jsonb_build_object('content_type', 'Text',
            'text', 'question ' || g.i))""",
        "tags": f"""jsonb_build_array(({tags})[g.i %% 5 + 1])
            || CASE WHEN g.i %% 3 = 0 THEN '["hard"]'::jsonb ELSE '[]'::jsonb END""",
        "search_text": "'question ' || g.i",
    }
    columns, values = insert_columns(EvalSetItem, given)
    params = {"evalset": version.evalset_id, "version": version.pk, "start": start, "stop": stop}
    with connection.cursor() as cursor:
        cursor.execute(ITEMS_SQL.format(columns=columns, values=values), params)


def _insert_results(experiment, version) -> None:
    """One result per item and repetition: status, score and verdict drawn from `u`, a hash of
    the position and repetition (a third of the items lean one way, so repetitions cluster)."""
    from django.db import connection

    from experiments.models import Result

    score = """CASE WHEN it.u < 55 THEN NULL
        WHEN it.u %% 4 = 0 THEN ((it.position * 37 + it.rep * 13) %% 21) / 20.0
        WHEN (it.position * 7 + it.rep) %% 10 < 6 THEN 1.0 ELSE 0.0 END"""
    verdict = f"""CASE WHEN it.u < 55 THEN 'unknown'
        WHEN ({score}) >= 0.5 THEN 'pass' ELSE 'fail' END"""
    corrected = "(it.position %% 997 = 5 AND it.u >= 55)"
    given = {
        "experiment_id": "%(experiment)s",
        "binding_id": "%(binding)s",
        "item_id": "it.id",
        "repeat": "it.rep",
        "position": "it.position",
        "tags": "it.tags",
        "status": """CASE WHEN it.u < 30 THEN 'error' WHEN it.u < 35 THEN 'timeout'
            ELSE 'success' END""",
        "score": score,
        "verdict": verdict,
        "reason": f"CASE WHEN ({verdict}) = 'pass' THEN 'contains' ELSE 'missing' END",
        "latency_ms": "2 + (it.position * 13 + it.rep * 7) %% 997 / 10.0",
        "human_verdict": f"""CASE WHEN {corrected} THEN
            (CASE WHEN ({verdict}) = 'pass' THEN 'fail' ELSE 'pass' END) ELSE '' END""",
        "human_score": f"CASE WHEN {corrected} THEN 1 - ({score}) END",
    }
    columns, values = insert_columns(Result, given)
    binding = experiment.bindings.get()
    params = {
        "experiment": experiment.pk,
        "binding": binding.pk,
        "evalset": version.evalset_id,
        "version": version.pk,
        "repeats": REPEATS,
    }
    with connection.cursor() as cursor:
        cursor.execute(RESULTS_SQL.format(columns=columns, values=values), params)


def _analyze() -> None:
    """Fresh planner statistics, as autovacuum would have after a real run."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE evalsets_evalsetitem")
        cursor.execute("VACUUM ANALYZE experiments_result")


def measure(experiment) -> None:
    """One warm-up refresh, BENCH_TIMES timed ones with the resident peak each added, and one
    under tracemalloc."""
    from experiments.results.aggregates import aggregates_refresh

    def refresh():
        aggregates_refresh(experiment=experiment)

    first = _timed(refresh)
    print(
        f"first refresh (cold): {first[0]:.2f} s, peak RSS +{first[1]:.0f} MB over {first[2]:.0f}"
    )
    runs = [_timed(refresh) for _ in range(TIMES)]
    seconds = [r[0] for r in runs]
    print(
        f"aggregates_refresh × {TIMES}: median {statistics.median(seconds):.2f} s, "
        f"min {min(seconds):.2f} s; peak RSS +{max(r[1] for r in runs):.0f} MB over "
        f"{runs[0][2]:.0f} MB before"
    )
    print(f"traced peak (tracemalloc, Python and numpy): {_traced_peak_mb(refresh):.0f} MB")
    summary = experiment.aggregates.get().summary
    print(
        f"summary: {summary['line']}; mean {summary['mean']:.4f}; fail-rate CI "
        f"{summary['fail_rate_ci']}; {len(summary['tags'])} tags; load: {_load()}"
    )


def _timed(action) -> tuple[float, float, float]:
    """(seconds, MB the resident peak rose above the resident size before, that size)."""
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # resets VmHWM to the current RSS
    before = _status_mb("VmRSS")
    started = time.perf_counter()
    action()
    elapsed = time.perf_counter() - started
    return elapsed, _status_mb("VmHWM") - before, before


def _traced_peak_mb(action) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def _status_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
