"""Export benchmark: an experiment with BENCH_ROWS results (default 1,000,000), then each export
— results CSV, results JSONL, garak's report.jsonl and hitlog.jsonl — streamed through the
Django test client (no network), with rows/s and the process's memory: RSS before the stream,
the highest RSS sampled every 20 ms while it runs, and the peak (VmHWM) of the streaming
process (a fresh process started after the build, so the figures are the export's alone).

The run is the shape exports read: an evalset version of BENCH_ROWS rows, an external target
whose stored output each row's turn takes (`target:actual_output`), and one code check mapped
to it and to the row's reference; half the rows fail, so the hit log has BENCH_ROWS / 2 lines.
Rows, target outputs and results are written by INSERT … SELECT over a recursive series (a
million rows in seconds, no model instances), the rest through the services.

Run as `python bench/export_bench.py` (DATABASE_URL's server with a scratch database
`assay_bench`, or BENCH_DB's name; else a temporary SQLite file). BENCH_REUSE=1 streams the
run a previous build left in that PostgreSQL database (two trees measured on the same rows);
BENCH_FORMATS picks formats (default csv,jsonl,report,hitlog). Prints figures and the load
average; asserts nothing. Targets (issue 19): under 150 MB RSS and over 50,000 rows/s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.support import scratch_environment  # noqa: E402

ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))
PAGE = os.sysconf("SC_PAGE_SIZE")
MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


def main() -> None:
    if os.environ.get("BENCH_STREAM_ONLY") == "1":
        return streams()
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-bench-")
    if os.environ.get("BENCH_REUSE") == "1":
        return reuse()
    database = scratch_environment()  # without PostgreSQL the streaming process finds the file
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    build()
    print(f"database: {'PostgreSQL' if database else 'SQLite'}; {ROWS:,} results")
    print(f"built in {time.perf_counter() - started:.1f} s", flush=True)
    # the streams run in a fresh process, so its memory is the export's, not the build's
    env = {**os.environ, "BENCH_STREAM_ONLY": "1"}
    subprocess.run([sys.executable, __file__], env=env, check=True)


def reuse() -> None:
    """Stream the run already built in BENCH_DB (PostgreSQL only: a SQLite file is per run)."""
    base, name = os.environ.get("DATABASE_URL", ""), os.environ.get("BENCH_DB", "assay_bench")
    if not base.startswith("postgres"):
        raise SystemExit("BENCH_REUSE needs DATABASE_URL on PostgreSQL")
    database = base.rsplit("/", 1)[0] + f"/{name}"
    print(f"database: PostgreSQL (reused {name}); {ROWS:,} results")
    env = {**os.environ, "BENCH_STREAM_ONLY": "1", "DATABASE_URL": database}
    subprocess.run([sys.executable, __file__], env=env, check=True)


def streams() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    import django

    django.setup()
    from django.test import Client

    from experiments.models import Experiment

    experiment = Experiment.objects.select_related("workspace", "created_by").get(name="bench")
    client = Client()
    client.force_login(experiment.created_by)
    print(f"streaming process: RSS {rss_mb():.0f} MB after set-up", flush=True)
    base = f"/w/{experiment.workspace.slug}/experiments/{experiment.public_id}/export/"
    for fmt in os.environ.get("BENCH_FORMATS", "csv,jsonl,report,hitlog").split(","):
        stream(client, base + f"{fmt}/", fmt)
    # VmHWM, not getrusage: Linux keeps ru_maxrss across exec, so it would be the builder's
    print(f"streaming process peak RSS (VmHWM, whole process): {peak_mb():.0f} MB")


# ----------------------------------------------------------------------------- the build


def build() -> None:
    """The run: rows, the target's outputs and one code check's results, then its aggregates
    (the report reads them) and its status, as a finished run has them."""
    from evalsets.models import EvalSetItem
    from experiments.models import Experiment, ExperimentStatus, Result, TargetResult
    from experiments.results.aggregates import aggregates_refresh

    experiment = _experiment()
    version = experiment.evalset_version
    _insert_select(TargetResult, _target_columns(experiment), _of_version(version))
    binding = experiment.bindings.get()
    _insert_select(Result, _result_columns(experiment, binding), _of_version(version))
    Experiment.objects.filter(pk=experiment.pk).update(
        status=ExperimentStatus.COMPLETED, results_total=ROWS, results_done=ROWS, items_total=ROWS
    )
    experiment.refresh_from_db()
    aggregates_refresh(experiment=experiment)
    _analyze(EvalSetItem, TargetResult, Result)  # the statistics autovacuum would gather


def _analyze(*models) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"ANALYZE {model._meta.db_table}")


def _experiment():
    """A draft run on a committed version of ROWS rows with an external target and a code
    check reading the target's output."""
    from assay import services as platform
    from evalsets import services as evalsets
    from experiments import services
    from tests.support.factories import TEXT_COLUMNS, make_code_version

    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", owner=user)
    evalset = evalsets.evalset_create(
        workspace=workspace, user=user, name="QA", columns=TEXT_COLUMNS
    )
    _insert_rows(evalset)  # the draft; the commit copies it with one INSERT … SELECT
    version = evalsets.version_commit(evalset=evalset, user=user, version="1.0.0", inline=True)
    evaluator = make_code_version(workspace=workspace, user=user)
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name="bench",
        evalset_version=version,
        target={"kind": "external"},
        bindings=[{"evaluator_version": evaluator, "mapping": MAPPING}],
    )


def _insert_rows(evalset) -> None:
    """ROWS draft rows at positions 0 … ROWS-1: even rows pass, odd rows fail."""
    from evalsets.models import EvalSetItem

    cell = '\'{"content_type": "Text", "text": "%s\' || n || \'"}\''
    data = (
        "'{\"input\": ' || " + cell % "question " + " || ', \"actual_output\": ' || "
        + cell % "answer " + " || ', \"reference_output\": {\"content_type\": \"Text\", "
        "\"text\": \"Paris\"}}'"
    )  # fmt: skip
    tags = "CASE WHEN n %% 2 = 0 THEN '[\"even\"]' ELSE '[\"odd\"]' END"
    columns = {
        "evalset": str(evalset.pk),
        "item_id": _vendor("uuid"),
        "position": "n",
        "data": _vendor("json") % data,
        "tags": _vendor("json") % tags,
    }
    _insert_select(EvalSetItem, columns, _series(ROWS))


def _target_columns(experiment) -> dict:
    """The target's output for each row: 'The capital is Paris' on even rows, Lyon on odd."""
    return {
        "experiment": str(experiment.pk),
        "item": "i.id",
        "item_uid": "i.item_id",
        "status": "'success'",
        "output": "CASE WHEN i.position %% 2 = 0 THEN 'The capital is Paris' "
        "ELSE 'The capital is Lyon' END",
        "latency_ms": "12.5",
        "created_at": "CURRENT_TIMESTAMP",
    }


def _result_columns(experiment, binding) -> dict:
    """A code check's result on each row: passes where the target said Paris."""
    even = "i.position %% 2 = 0"
    return {
        "experiment": str(experiment.pk),
        "binding": str(binding.pk),
        "item": "i.id",
        "position": "i.position",
        "tags": "i.tags",
        "status": "'success'",
        "score": f"CASE WHEN {even} THEN 1.0 ELSE 0.0 END",
        "verdict": f"CASE WHEN {even} THEN 'pass' ELSE 'fail' END",
        "reason": f"CASE WHEN {even} THEN 'contains' ELSE 'missing' END",
        "latency_ms": "0.4",
    }


def _of_version(version) -> str:
    from evalsets.models import EvalSetItem

    table = EvalSetItem._meta.db_table
    return (
        f"FROM {table} i WHERE i.evalset_id = {version.evalset_id} AND i.version_id = {version.pk}"
    )


def _series(count: int) -> str:
    """FROM a series n = 0 … count-1 (a recursive CTE: PostgreSQL and SQLite both have it)."""
    last = count - 1
    return (
        f"FROM (WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < {last})"
        " SELECT n FROM s) AS series"
    )


def _vendor(what: str) -> str:
    from django.db import connection

    postgres = connection.vendor == "postgresql"
    return {
        "uuid": "gen_random_uuid()" if postgres else "lower(hex(randomblob(16)))",
        "json": "CAST(%s AS jsonb)" if postgres else "%s",
    }[what]


def _insert_select(model, columns: dict[str, str], source: str) -> None:
    """INSERT INTO model's table SELECT `columns` (field name → SQL) `source`; the fields not
    named take their Python default, so the bench keeps up with new columns."""
    from django.db import connection, transaction

    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    names, values, params = [], [], []
    for field in fields:
        names.append(connection.ops.quote_name(field.column))
        if field.name in columns:
            values.append(columns[field.name])
        else:
            values.append("%s")
            params.append(field.get_db_prep_save(field.get_default(), connection))
    sql = f"INSERT INTO {model._meta.db_table} ({', '.join(names)}) "
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql + f"SELECT {', '.join(values)} {source}", params)


# ----------------------------------------------------------------------------- the streams


def peak_mb() -> float:
    with open("/proc/self/status") as status:
        line = next(x for x in status if x.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE / 2**20


class Sampler(threading.Thread):
    """The highest RSS seen while the stream runs, sampled every 20 ms."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak, self.stop = rss_mb(), threading.Event()

    def run(self):
        while not self.stop.wait(0.02):
            self.peak = max(self.peak, rss_mb())


def stream(client, url: str, fmt: str) -> None:
    before, load = rss_mb(), os.getloadavg()[0]
    sampler = Sampler()
    sampler.start()
    started = time.perf_counter()
    response = client.get(url)
    lines = size = 0
    for chunk in response.streaming_content:
        lines += chunk.count(b"\n")
        size += len(chunk)
    elapsed = time.perf_counter() - started
    sampler.stop.set()
    sampler.join()
    rows = ROWS if fmt in ("csv", "jsonl", "report") else lines  # report: rows summarised
    print(
        f"{fmt:>6}: HTTP {response.status_code}, {lines:,} lines, {size / 2**20:.0f} MB in "
        f"{elapsed:.1f} s = {rows / elapsed:,.0f} rows/s; RSS {before:.0f} MB before, "
        f"{sampler.peak:.0f} MB peak during (+{sampler.peak - before:.0f} MB); "
        f"load {load:.2f} → {os.getloadavg()[0]:.2f}",
        flush=True,
    )


if __name__ == "__main__":
    main()
