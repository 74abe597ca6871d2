"""Real processes for integration tests: a private redis-server and Celery worker processes.

The worker processes use the test database (PostgreSQL: an in-memory SQLite test database is
invisible to other processes) and a Redis of the test's own, so a test may kill and restart
either without touching anything else on the machine.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def python_scripts(script: str, argvs: list[list[str]], timeout: float) -> list[tuple]:
    """Run `script` (python -c) once per argv, all at once, from the repository; wait for every
    one and return (returncode, stdout, stderr) each."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, *argv],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for argv in argvs
    ]
    finished = []
    for proc in procs:
        out, err = proc.communicate(timeout=timeout)
        finished.append((proc.returncode, out, err))
    return finished


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RedisServer:
    """redis-server on a free port, without persistence (a restart loses every message)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed")
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port)
        return self

    def kill(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


class Worker:
    """`celery -A assay worker` (optionally with beat) in its own process group."""

    def __init__(
        self,
        *,
        database_url: str,
        redis_url: str,
        beat: bool = False,
        concurrency: int = 2,
        extra_env: dict | None = None,
        supervised: bool = False,
        queues: str = "default,code,llm",
    ) -> None:
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "PYTHONUNBUFFERED": "1",
            **(extra_env or {}),
        }
        self.beat, self.concurrency, self.queues = beat, concurrency, queues
        self.process: subprocess.Popen | None = None
        self.log = Path(os.environ.get("TMPDIR", "/tmp")) / f"assay-worker-{free_port()}.log"
        # As compose (restart: unless-stopped) and Kubernetes do: a worker that exits by itself
        # is started again. Celery can exit on a broker race while it reconnects ("Unrecoverable
        # error" from kombu, seen once in CI after a Redis restart); the run must survive that.
        self.supervised, self.restarts = supervised, 0
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None

    def start(self) -> Worker:
        self._spawn()
        if self.supervised and self._supervisor is None:
            self._supervisor = threading.Thread(target=self._supervise, daemon=True)
            self._supervisor.start()
        return self

    def _supervise(self) -> None:
        while not self._stopping.wait(0.5):
            if self.process and self.process.poll() is not None and not self._stopping.is_set():
                self.restarts += 1
                self._spawn()

    def _spawn(self) -> None:
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "assay",
            "worker",
            "-Q",
            self.queues,
            "-c",
            str(self.concurrency),
            "--loglevel",
            "INFO",
            "-n",
            f"test-{os.getpid()}-{time.monotonic_ns()}@%h",
        ]
        if self.beat:
            command += ["-B", "--schedule", str(self.log.with_suffix(".beat"))]
        handle = self.log.open("ab")  # a restarted worker's lines follow the first one's
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=self.env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def kill_hard(self) -> None:
        """kill -9 the whole worker (parent and pool children), as a crash would."""
        self._stopping.set()
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        self._stopping.set()
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.kill_hard()

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def _wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")
