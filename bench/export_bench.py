"""Export benchmark: an experiment with BENCH_ROWS results (default 1,000,000; results written
directly with bulk inserts, as bench/dashboard_bench.py does), then each export — results CSV,
results JSONL, garak's report.jsonl and hitlog.jsonl — streamed through the Django test client
(no network), with rows/s and the process's memory: RSS before the stream, the highest RSS
sampled every 20 ms while it runs, and the peak (VmHWM) of the streaming process (a fresh
process started after the build, so the figures are the export's alone).

Run as `python bench/export_bench.py` (DATABASE_URL's server with a scratch database
`assay_bench`, or BENCH_DB's name; else a temporary SQLite file). Prints figures; asserts
nothing. Targets (issue 19): under 150 MB RSS and over 50,000 rows/s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.support import scratch_database  # noqa: E402

ROWS = int(os.environ.get("BENCH_ROWS", "1000000"))
PAGE = os.sysconf("SC_PAGE_SIZE")


def main() -> None:
    if os.environ.get("BENCH_STREAM_ONLY") == "1":
        return streams()
    os.environ["ASSAY_DATA_DIR"] = tempfile.mkdtemp(prefix="assay-bench-")
    database = scratch_database()
    if database:
        os.environ["DATABASE_URL"] = database
    else:
        os.environ.pop("DATABASE_URL", None)  # the streaming process finds the same file
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    build()
    print(f"database: {'PostgreSQL' if database else 'SQLite'}; {ROWS:,} results")
    print(f"built in {time.perf_counter() - started:.1f} s")
    # the streams run in a fresh process, so its memory is the export's, not the build's
    env = {**os.environ, "BENCH_STREAM_ONLY": "1"}
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
    print(f"streaming process: RSS {rss_mb():.0f} MB after set-up")
    base = f"/w/{experiment.workspace.slug}/experiments/{experiment.public_id}/export/"
    for fmt in ("csv", "jsonl", "report", "hitlog"):
        stream(client, base + f"{fmt}/", fmt)
    # VmHWM, not getrusage: Linux keeps ru_maxrss across exec, so it would be the builder's
    print(f"streaming process peak RSS (VmHWM, whole process): {peak_mb():.0f} MB")


def build():
    from assay import services as platform
    from evalsets.models import EvalSetItem
    from experiments import services
    from experiments.models import Experiment, ExperimentStatus, Result
    from experiments.results.aggregates import aggregates_refresh
    from tests.support.factories import make_code_version, make_evalset_version, qa_rows

    user = platform.user_create(username="bench", password="bench-password-1")
    workspace = platform.workspace_create(name="Bench", owner=user)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    evaluator = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="bench",
        evalset_version=version,
        bindings=[{"evaluator_version": evaluator}],
    )
    binding = experiment.bindings.get()
    items = EvalSetItem.objects.filter(version=version).values_list(
        "pk", "item_id", "position", "tags"
    )
    Result.objects.bulk_create(
        (_result(experiment, binding, item) for item in items.iterator(5000)), batch_size=5000
    )
    Experiment.objects.filter(pk=experiment.pk).update(
        status=ExperimentStatus.COMPLETED, results_total=ROWS, results_done=ROWS, items_total=ROWS
    )
    experiment.refresh_from_db()
    aggregates_refresh(experiment=experiment)
    return experiment, user


def _result(experiment, binding, item: tuple):
    """A code check's result with its turn (what the CSV's input column carries)."""
    from experiments.models import Result

    pk, uid, pos, tags = item
    output = "The capital is Paris" if pos % 2 == 0 else "The capital is Lyon"
    fields = {"reference_output": {"content_type": "Text", "text": "Paris"}}
    outputs = {"actual_output": {"content_type": "Text", "text": output}}
    return Result(
        experiment=experiment,
        binding=binding,
        item_id=pk,
        item_uid=uid or uuid.uuid4(),
        position=pos,
        tags=tags,
        status="success",
        score=float(pos % 2 == 0),
        verdict="pass" if pos % 2 == 0 else "fail",
        reason="contains" if pos % 2 == 0 else "missing",
        latency_ms=0.4,
        input={"evaluate_dataset_fields": fields, "evaluate_target_output_fields": outputs},
    )


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
    before = rss_mb()
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
        f"{sampler.peak:.0f} MB peak during (+{sampler.peak - before:.0f} MB)"
    )


if __name__ == "__main__":
    main()
