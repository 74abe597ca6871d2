"""Dashboard benchmark: an experiment with 100,000 results — aggregates, the experiment page and
a filtered results page, timed as the server sees them (Django test client, no network).

Run as `python bench/dashboard_bench.py` (DATABASE_URL's server with a scratch database
`assay_bench`, else a temporary SQLite file). Prints figures; asserts nothing.
Target: the page and a filtered table page under 200 ms each.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.support import scratch_database  # noqa: E402

ROWS = int(os.environ.get("BENCH_ROWS", "100000"))


def main() -> None:
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-bench-")
    database = scratch_database()
    os.environ.pop("DATABASE_URL", None) if not database else os.environ.update(
        DATABASE_URL=database
    )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    experiment, user = build()
    print(f"database: {'PostgreSQL' if database else 'SQLite'}; {ROWS:,} results")
    timed("aggregates_refresh (all statistics, stored)", lambda: refresh(experiment), 3)
    from django.test import Client

    client = Client()
    client.force_login(user)
    url = f"/w/{experiment.workspace.slug}/experiments/{experiment.public_id}/"
    timed("experiment page (dashboard + first results page)", lambda: get(client, url), 7)
    filtered = url + "?verdict=fail&tag=odd&q=missing&page=40"
    timed(
        "filtered results page (verdict, tag, text search, page 40)",
        lambda: get(client, filtered),
        7,
    )
    timed("dashboard partial", lambda: get(client, url + "dashboard/"), 7)


def build():
    from assay import services as platform
    from evalsets.models import EvalSetItem
    from experiments import services
    from experiments.models import Experiment, ExperimentStatus, Result
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", owner=user)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    ev = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="bench",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
    )
    binding = experiment.bindings.get()
    items = EvalSetItem.objects.filter(version=version).values_list(
        "pk", "item_id", "position", "tags"
    )
    # results written directly: this bench measures reading, not running
    Result.objects.bulk_create(
        (
            Result(
                experiment=experiment,
                binding=binding,
                item_id=pk,
                item_uid=uid or uuid.uuid4(),
                position=pos,
                tags=tags,
                status="success" if pos % 13 else "error",
                score=None if pos % 13 == 0 else float(pos % 2 == 0),
                verdict="unknown" if pos % 13 == 0 else ("pass" if pos % 2 == 0 else "fail"),
                reason="contains" if pos % 2 == 0 else "missing",
                input={},
            )
            for pk, uid, pos, tags in items.iterator(5000)
        ),
        batch_size=5000,
    )
    Experiment.objects.filter(pk=experiment.pk).update(
        status=ExperimentStatus.COMPLETED, results_total=ROWS, results_done=ROWS, items_total=ROWS
    )
    experiment.refresh_from_db()
    refresh(experiment)
    analyze()
    return experiment, user


def analyze() -> None:
    """Fresh planner statistics, as autovacuum would have after a real run."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def refresh(experiment) -> None:
    from experiments.results.aggregates import aggregates_refresh

    aggregates_refresh(experiment=experiment)


def get(client, url: str) -> None:
    response = client.get(url)
    if response.status_code != 200:
        raise SystemExit(f"{url}: HTTP {response.status_code}")


def timed(label: str, action, repeats: int) -> None:
    action()  # warm caches and connections
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    print(f"{label:<62} median {statistics.median(times):8.1f} ms   min {min(times):8.1f} ms")


if __name__ == "__main__":
    main()
