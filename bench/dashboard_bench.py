"""Dashboard benchmark: an experiment with 100,000 results — aggregates, the experiment page and
a filtered results page, timed as the server sees them (Django test client, no network).

`BENCH_EVALUATORS=3` scores the same rows with three evaluators (3 × BENCH_ROWS results), for
the one-row-per-item results grid with a column per evaluator; it also times a sort by one
evaluator's verdict and the row drawer.

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
EVALUATORS = int(os.environ.get("BENCH_EVALUATORS", "1"))


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
    results = ROWS * EVALUATORS
    print(f"database: {'PostgreSQL' if database else 'SQLite'}; {ROWS:,} rows × {EVALUATORS}")
    print(f"evaluators = {results:,} results")
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
    first = experiment.bindings.order_by("position").first()
    sorted_url = url + f"?sort=verdict:{first.pk}&page=40"
    timed("results sorted by one evaluator's verdict, page 40", lambda: get(client, sorted_url), 7)
    one = url + f"?evaluator={first.pk}&verdict=fail&page=40"
    timed("one evaluator's fails, page 40", lambda: get(client, one), 7)
    item = experiment.results.order_by("position").values_list("item_uid", flat=True)[500]
    timed("row drawer (every evaluator of one row)", lambda: get(client, f"{url}items/{item}/"), 7)


def build():
    from assay import services as platform
    from evalsets.models import EvalSetItem
    from experiments import services
    from experiments.models import Experiment, ExperimentStatus, Result
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", owner=user)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    versions = [
        make_code_version(workspace=workspace, user=user, name=f"Check {n}")
        for n in range(EVALUATORS)
    ]
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="bench",
        evalset_version=version,
        bindings=[{"evaluator_version": v} for v in versions],
    )
    items = EvalSetItem.objects.filter(version=version).values_list(
        "pk", "item_id", "position", "tags"
    )
    # results written directly: this bench measures reading, not running
    for offset, binding in enumerate(experiment.bindings.order_by("position")):
        Result.objects.bulk_create(
            (
                _result(experiment, binding, (pk, uid, pos, tags), offset)
                for pk, uid, pos, tags in items.iterator(5000)
            ),
            batch_size=5000,
        )
    total = ROWS * EVALUATORS
    Experiment.objects.filter(pk=experiment.pk).update(
        status=ExperimentStatus.COMPLETED, results_total=total, results_done=total, items_total=ROWS
    )
    experiment.refresh_from_db()
    refresh(experiment)
    analyze()
    return experiment, user


def _result(experiment, binding, item: tuple, offset: int):
    """A result whose verdict pattern is shifted per evaluator, so evaluators disagree."""
    from experiments.models import Result

    pk, uid, pos, tags = item
    shifted = pos + offset
    return Result(
        experiment=experiment,
        binding=binding,
        item_id=pk,
        item_uid=uid or uuid.uuid4(),
        position=pos,
        tags=tags,
        status="success" if shifted % 13 else "error",
        score=None if shifted % 13 == 0 else float(shifted % 2 == 0),
        verdict="unknown" if shifted % 13 == 0 else ("pass" if shifted % 2 == 0 else "fail"),
        reason="contains" if shifted % 2 == 0 else "missing",
    )


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
