"""Evalset commit benchmark: a draft of BENCH_ROWS rows (default 1,000,000, bulk-inserted),
committed through the versions page (Django test client, no network): how long the request
takes to return with the version `committing`, then how long the background copy takes
(`commit_run`, the task's work, run in this process in batches of ASSAY_COMMIT_BATCH_ROWS) and
at what rate. With BENCH_INLINE=1 it also times the single INSERT … SELECT of an inline commit
of the same draft, for comparison.

Run as `python bench/evalset_commit_bench.py` (DATABASE_URL's server with a scratch database
`assay_bench`, or BENCH_DB's name; else a temporary SQLite file). Prints figures; asserts
nothing.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.support import scratch_environment  # noqa: E402

ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))


def main() -> None:
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-bench-")
    database = scratch_environment()
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    evalset, user = build()
    print(f"database: {'PostgreSQL' if database else 'SQLite'}; draft of {ROWS:,} rows")
    print(
        f"inline up to {settings.ASSAY_COMMIT_INLINE_ROWS:,} rows; "
        f"batches of {settings.ASSAY_COMMIT_BATCH_ROWS:,}"
    )
    version = commit_request(evalset, user, "1.0.0")
    copy(version)
    if os.environ.get("BENCH_INLINE") == "1":
        inline(evalset, user)


def build():
    from assay import services as platform
    from evalsets import services
    from evalsets.items.rows import search_text
    from evalsets.models import EvalSetItem
    from tests.support.factories import TEXT_COLUMNS, qa_rows, text

    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", owner=user)
    evalset = services.evalset_create(
        workspace=workspace, user=user, name="Big", columns=TEXT_COLUMNS
    )
    for start in range(0, ROWS, 50_000):
        rows = qa_rows(min(50_000, ROWS - start))
        EvalSetItem.objects.bulk_create(
            (_item(evalset, start + i, row, text, search_text) for i, row in enumerate(rows)),
            batch_size=5000,
        )
    _analyze()
    return evalset, user


def _item(evalset, position: int, row: dict, text, search_text):
    from evalsets.models import EvalSetItem

    data = {k: text(v) for k, v in row.items() if k != "tags"}
    return EvalSetItem(
        evalset=evalset,
        item_id=uuid.uuid4(),
        position=position,
        data=data,
        tags=row["tags"],
        search_text=search_text(data),
    )


def _analyze() -> None:
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def commit_request(evalset, user, version: str):
    from django.test import Client

    from evalsets.models import EvalSetVersion

    client = Client()
    client.force_login(user)
    url = f"/w/{evalset.workspace.slug}/evalsets/{evalset.public_id}/commit/"
    started = time.perf_counter()
    response = client.post(url, {"version": version, "note": ""})
    elapsed = time.perf_counter() - started
    created = EvalSetVersion.objects.get(evalset=evalset, version=version)
    print(
        f"commit request: HTTP {response.status_code} in {elapsed * 1000:.0f} ms; version "
        f"{created.version} {created.status}, {created.rows_copied:,} of {created.item_count:,}"
    )
    return created


def copy(version) -> None:
    from evalsets.committing import commit_claim, commit_run
    from evalsets.models import EvalSetItem, EvalSetVersion

    started = time.perf_counter()
    commit_claim(version_id=version.pk)
    status = commit_run(version_id=version.pk)
    elapsed = time.perf_counter() - started
    done = EvalSetVersion.objects.get(pk=version.pk)
    rows = EvalSetItem.objects.filter(version=done).count()
    print(
        f"background copy: {status} in {elapsed:.1f} s = {done.rows_copied / elapsed:,.0f} "
        f"rows/s ({rows:,} rows in the version)"
    )


def inline(evalset, user) -> None:
    from evalsets import services

    started = time.perf_counter()
    version = services.version_commit(evalset=evalset, user=user, version="1.0.1", inline=True)
    elapsed = time.perf_counter() - started
    print(f"inline commit (one INSERT … SELECT): {version.item_count:,} rows in {elapsed:.1f} s")


if __name__ == "__main__":
    main()
