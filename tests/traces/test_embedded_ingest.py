"""`manage.py assay_run` (what `make run` starts: SQLite and the filesystem broker, a worker
process of its own) takes spans from the OpenTelemetry SDK's exporter and stores them, with a
key made by `manage.py issue_ingest_key`; and the demo agent's traces come the same way, sent
by the SDK's exporter with a demo ingest key once the server answers."""

import os
import subprocess
import sys
import time

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from tests.assay.test_embedded_run import ROOT, free_port, wait_for

COUNT = "from traces.models import Span; print(Span.objects.filter(service='embedded').count())"
DEMO = (
    "from traces.models import IngestKey, Span; "
    "k = IngestKey.objects.filter(name='Demo agent', last_used_at__isnull=False).count(); "
    "n = Span.objects.filter(service='demo-support-agent').count(); print(k, n)"
)


def manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_the_embedded_platform_stores_spans_through_its_filesystem_broker(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["ASSAY_DATA_DIR"] = str(tmp_path)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "assay_run", "--addr", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/accounts/login/", time.monotonic() + 120)
        key = manage(env, "issue_ingest_key", "--workspace", "demo").strip().splitlines()[-1]
        provider = TracerProvider(resource=Resource.create({"service.name": "embedded"}))
        exporter = OTLPSpanExporter(
            endpoint=f"http://127.0.0.1:{port}/otlp/v1/traces",
            headers={"Authorization": f"Bearer {key}"},
            timeout=60,
        )
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        with provider.get_tracer("t").start_as_current_span("root"):
            with provider.get_tracer("t").start_as_current_span("child"):
                pass
        provider.shutdown()
        deadline = time.monotonic() + 120
        # the shell says how many objects it imported first: the count is its last line
        while manage(env, "shell", "-c", COUNT).strip().splitlines()[-1] != "2":
            assert time.monotonic() < deadline, "the worker never stored the spans"
            time.sleep(1)
        # the demo's spans went through the exporter (its key used) and the worker
        while manage(env, "shell", "-c", DEMO).strip().splitlines()[-1] != "1 12":
            assert time.monotonic() < deadline, "the demo's traces never arrived"
            time.sleep(1)
    finally:
        os.killpg(process.pid, 15)
        process.wait(timeout=90)
