"""Run the embedded platform: migrate, load the demo, start one worker and the web server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from assay.demo import DEMO_PASSWORD, DEMO_USERNAME


class Command(BaseCommand):
    help = "Start web and one worker together (the `make run` command)."

    def add_arguments(self, parser):
        parser.add_argument("--addr", default="127.0.0.1:8000")
        parser.add_argument("--no-worker", action="store_true")
        parser.add_argument("--no-demo", action="store_true")

    def handle(self, *args, addr, no_worker, no_demo, **options):
        # SIGTERM stops the platform as Ctrl-C does: runserver returns and `finally` stops the
        # worker, which runs in a session of its own (so it is stopped by us, in order).
        signal.signal(signal.SIGTERM, _interrupt)
        # Ctrl-C too, even when whoever started us ignored SIGINT (a child inherits that:
        # Python then leaves it ignored, and Ctrl-C would do nothing)
        signal.signal(signal.SIGINT, _interrupt)
        call_command("migrate", interactive=False, verbosity=0)
        if not no_demo:
            # the demo's traces go through the OTLP exporter to this server once it answers
            # (`send_demo_traces`), as a team's app sends them, not stored in-process
            settings.ASSAY_DEMO_TRACES_BY_EXPORTER = True
            call_command("load_demo")
        worker = None if no_worker else self._start_worker()
        if not no_demo:
            _send_demo_traces(addr)
        self.stdout.write(
            f"\nAssay is running: open http://{addr}/ and sign in as "
            f"{DEMO_USERNAME} / {DEMO_PASSWORD}\n"
        )
        try:
            call_command("runserver", addr, use_reloader=False, use_threading=True)
        finally:
            if worker is not None:
                _stop(worker)

    def _start_worker(self) -> subprocess.Popen:
        queues = ",".join(settings.CELERY_TASK_QUEUES_NAMES)
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "assay",
            "worker",
            "-Q",
            queues,
            "--concurrency",
            # the same count the fair dispatch bounds each workspace by (settings)
            str(settings.ASSAY_WORKER_CONCURRENCY),
            "--loglevel",
            "INFO",
            "-B",
            "--schedule",
            str(settings.DATA_DIR / "celerybeat-schedule"),
        ]
        return subprocess.Popen(command, env=os.environ.copy(), start_new_session=True)


def _send_demo_traces(addr: str) -> None:
    """`send_demo_traces` beside the server (a thread: it waits for the server to answer)."""
    host, _, port = addr.rpartition(":")
    host = "127.0.0.1" if host in ("", "0.0.0.0", "[::]") else host

    def send() -> None:
        try:
            call_command("send_demo_traces", url=f"http://{host}:{port}", wait=120)
        except CommandError as exc:  # the platform runs on without the demo's traces
            sys.stderr.write(f"Demo traces not sent: {exc}\n")

    threading.Thread(target=send, daemon=True).start()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


# Warm shutdown first: the node alone is told (it stops its pool and beat itself; a signal to
# its pool would kill running tasks). A worker or beat still there after a few seconds is
# stopped cold, then killed, group-wide. Nothing is lost: tasks are acknowledged late and a
# stopped chunk's lease expires, so the next start picks it up.
STOP_STEPS = (
    (os.kill, signal.SIGTERM, 10),
    (os.killpg, signal.SIGQUIT, 5),
    (os.killpg, signal.SIGKILL, 5),
)


def _stop(worker: subprocess.Popen) -> None:
    """Stop the worker's whole process group: the node, its pool and its beat."""
    for send, signum, grace in STOP_STEPS:
        try:
            send(worker.pid, signum)
        except ProcessLookupError:
            break
        try:
            worker.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    try:
        os.killpg(worker.pid, signal.SIGKILL)  # pool processes that outlived the node
    except ProcessLookupError:
        pass
