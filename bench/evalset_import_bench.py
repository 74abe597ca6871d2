"""Import a generated 1,000,000-row JSONL file into an evalset; print rows/s and peak memory.

Run from the repository root: ``.venv/bin/python bench/evalset_import_bench.py [--rows N]``.
Each database run happens in a child process with its own temporary data directory (SQLite)
or its own temporary PostgreSQL database (when DATABASE_URL is set); nothing under var/ is
touched. The import goes through the same service the Celery task calls. Prints figures;
asserts nothing. Targets: more than 20,000 rows/s and under 300 MB peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TAGS = ["geo", "math", "code", "safety", "easy", "hard", "multi-turn"]


def generate(path: Path, rows: int) -> int:
    """Write `rows` JSONL lines of about 200 bytes each; return the file size."""
    rng = random.Random(7)
    with path.open("w", encoding="utf-8") as out:
        for i in range(rows):
            record = {
                "question": f"Question {i}: what is {rng.randint(1, 999)} times "
                f"{rng.randint(1, 999)}, and why does it matter for row {i}?",
                "reference_output": f"The answer is {rng.randint(1, 10**6)}.",
                "image": f"https://images.example.org/{i % 5000}.png",
                "tags": rng.sample(TAGS, 2),
            }
            out.write(json.dumps(record) + "\n")
    return path.stat().st_size


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def child(rows: int, label: str) -> None:
    """Set up Django on the temporary database, import, commit a version, print figures."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    import django

    django.setup()
    from django.core.files import File
    from django.core.management import call_command

    from assay import services as platform
    from evalsets import services
    from evalsets.importing import import_claim, import_create, import_run

    call_command("migrate", verbosity=0, interactive=False)
    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", slug="bench", owner=user)
    evalset = services.evalset_create(
        workspace=workspace,
        user=user,
        name="Bench",
        columns=[
            {"name": "question", "content_type": "Text", "required": True},
            {"name": "reference_output", "content_type": "Text"},
            {"name": "image", "content_type": "Image"},
        ],
    )
    source = Path(os.environ["ASSAY_DATA_DIR"]) / "bench.jsonl"
    started = time.perf_counter()
    size = generate(source, rows)
    print(
        f"[{label}] generated {rows:,} rows, {size / 1e6:.0f} MB "
        f"in {time.perf_counter() - started:.1f}s"
    )
    with source.open("rb") as handle:
        job = import_create(
            evalset=evalset, user=user, upload=File(handle, name="bench.jsonl"), enqueue=False
        )
    source.unlink()
    rss_before = peak_rss_mb()
    job = import_claim(import_id=job.pk)
    started = time.perf_counter()
    job = import_run(job=job)
    elapsed = time.perf_counter() - started
    print(
        f"[{label}] import: {job.status}, {job.rows_imported:,} rows in {elapsed:.1f}s = "
        f"{job.rows_imported / elapsed:,.0f} rows/s (target > 20,000)"
    )
    print(
        f"[{label}] peak RSS of the importing process: {peak_rss_mb():.0f} MB "
        f"(before the import: {rss_before:.0f} MB; target < 300 MB)"
    )
    started = time.perf_counter()
    version = services.version_commit(evalset=evalset, user=user, version="1.0.0", inline=True)
    print(
        f"[{label}] commit 1.0.0 ({version.item_count:,} rows, one INSERT … SELECT): "
        f"{time.perf_counter() - started:.1f}s"
    )


def run_child(rows: int, label: str, env: dict) -> None:
    command = [sys.executable, __file__, "--rows", str(rows), "--child", label]
    subprocess.run(command, env=env, check=True, cwd=ROOT)


def with_postgres(rows: int, base_url: str, env: dict) -> None:
    """Run the child against a throw-away database on the DATABASE_URL server."""
    import psycopg

    name = f"assay_bench_{os.getpid()}"
    server = base_url.rsplit("/", 1)[0]
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        run_child(rows, "postgresql", {**env, "DATABASE_URL": f"{server}/{name}"})
    finally:
        with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--child", choices=["sqlite", "postgresql"])
    parser.add_argument("--only", choices=["sqlite", "postgresql"])
    args = parser.parse_args()
    if args.child:
        child(args.rows, args.child)
        return
    database_url = os.environ.get("DATABASE_URL", "")
    with tempfile.TemporaryDirectory(prefix="assay-bench-") as data_dir:
        env = {**os.environ, "ASSAY_DATA_DIR": data_dir, "MEDIA_ROOT": f"{data_dir}/media"}
        env.pop("DATABASE_URL", None)
        if args.only in (None, "sqlite"):
            run_child(args.rows, "sqlite", env)
        if database_url and args.only in (None, "postgresql"):
            with_postgres(args.rows, database_url, env)
        elif not database_url:
            print("[postgresql] skipped: set DATABASE_URL to bench PostgreSQL too")


if __name__ == "__main__":
    main()
