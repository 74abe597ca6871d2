"""`manage.py send_demo_traces --url http://127.0.0.1:8000`: once the Assay at that address
answers, its demo workspace gets the demo agent's spans through the OpenTelemetry SDK's
OTLP/HTTP exporter (`traces.demo.demo_send`). `make run` runs it beside the server."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from assay.models import Workspace
from traces.demo import demo_send

DEMO_WORKSPACE = "demo"


class Command(BaseCommand):
    help = "Send the demo agent's traces to a running Assay through the OTLP exporter."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--wait", type=float, default=120, help="seconds to wait for it")

    def handle(self, *args, url: str, wait: float, **options):
        try:
            workspace = Workspace.objects.filter(slug=DEMO_WORKSPACE).first()
            if workspace is None:
                raise CommandError("no demo workspace: run `manage.py load_demo` first")
            _wait_until_up(url, wait)
            sent = demo_send(workspace=workspace, base_url=url)
        finally:
            connection.close()  # run in a thread beside the server by assay_run
        self.stdout.write(f"Demo traces: {sent} spans sent to {url}/otlp/v1/traces")


def _wait_until_up(url: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            with urllib.request.urlopen(f"{url.rstrip('/')}/healthz", timeout=5):
                return
        except urllib.error.HTTPError:
            return  # it answers (a health check may say 503 while the worker starts)
        except OSError:
            if time.monotonic() > deadline:
                raise CommandError(f"{url} did not answer within {wait:.0f} s") from None
            time.sleep(0.5)
