"""Storage benchmark: what one result costs in PostgreSQL, relation by relation.

Runs an experiment of BENCH_ROWS rows (default 20,000) × one Python code check with a short
reason (the sandbox, in this process) behind a target-less evalset, then — after VACUUM
ANALYZE, as autovacuum would leave it — prints the results table's heap, TOAST and each
index divided by the results, and the average width of a stored result row; then the GIN
(trigram) indexes once rebuilt, as a larger table amortises their pending lists.

    BENCH_ROWS=20000    rows (and results)
    BENCH_DB=name       the scratch database's name (default assay_bench)

Prints figures; asserts nothing. Needs DATABASE_URL on a PostgreSQL server.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.support import scratch_database  # noqa: E402

ROWS = int(os.environ.get("BENCH_ROWS", "20000"))


def main() -> None:
    database = scratch_database()
    if not database:
        raise SystemExit("storage_bench needs DATABASE_URL on a PostgreSQL server")
    os.environ["DATABASE_URL"] = database
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-storage-bench-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    experiment = run()
    vacuum()
    report(experiment)


def run():
    from assay import services as platform
    from experiments import scoring as engine
    from experiments import services
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", owner=user)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    check = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="storage",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        launch=True,
    )
    started = time.perf_counter()
    done = engine.experiment_run_inline(experiment_id=experiment.pk)
    print(f"{ROWS} rows run inline in {time.perf_counter() - started:.1f} s: {done.status}")
    return done


def vacuum() -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE experiments_result")


def report(experiment) -> None:
    from django.db import connection

    from experiments.models import Result

    table = Result._meta.db_table
    count = Result.objects.filter(experiment=experiment).count()
    with connection.cursor() as cursor:
        parts = _parts(cursor, table)
        cursor.execute(f"SELECT avg(pg_column_size(r.*)) FROM {table} r")  # noqa: S608
        width = cursor.fetchone()[0]
    total = sum(size for _name, size in parts)
    print(f"{count} results; {total / count:.0f} bytes per result (table + indexes + TOAST)")
    for name, size in parts:
        print(f"  {name:<48} {size / count:7.1f} bytes per result")
    print(f"  average stored row width (pg_column_size)        {width:7.1f} bytes")
    _gin_rebuilt(table, count)


def _gin_rebuilt(table: str, count: int) -> None:
    """The GIN (trigram) indexes rebuilt: what they come to once a table is large enough that
    the pages of their pending lists (gin_pending_list_limit) no longer count."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid "
            "JOIN pg_am a ON a.oid = c.relam WHERE x.indrelid = %s::regclass AND a.amname = 'gin'",
            [table],
        )
        for (name,) in cursor.fetchall():
            cursor.execute(f"REINDEX INDEX {name}")
            cursor.execute("SELECT pg_relation_size(%s)", [name])
            size = cursor.fetchone()[0]
            print(f"  {name + ' rebuilt':<48} {size / count:7.1f} bytes per result")


def _parts(cursor, table: str) -> list[tuple[str, int]]:
    """(relation, bytes): the heap with its free-space and visibility maps, TOAST with its
    index, then every index of the table."""
    cursor.execute(
        "SELECT pg_table_size(%s) - coalesce(pg_total_relation_size(reltoastrelid), 0), "
        "coalesce(pg_total_relation_size(reltoastrelid), 0) FROM pg_class WHERE relname = %s",
        [table, table],
    )
    heap, toast = cursor.fetchone()
    cursor.execute(
        "SELECT indexrelid::regclass::text, pg_relation_size(indexrelid) FROM pg_index "
        "WHERE indrelid = %s::regclass ORDER BY 2 DESC",
        [table],
    )
    return [("heap", heap), ("TOAST", toast), *cursor.fetchall()]


if __name__ == "__main__":
    main()
