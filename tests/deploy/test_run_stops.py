"""`make run` (manage.py assay_run) stops web, worker and beat when told to: SIGTERM to its
process group (a supervisor, `kill -- -PGID`) or Ctrl-C. A worker once stayed in "beat:
Shutting down…" for minutes after SIGTERM; now nothing it started outlives it."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "assay"))
from test_embedded_run import free_port, health_when  # noqa: E402


def children() -> dict[int, int]:
    """pid → parent pid of every live process (zombies count as gone)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if fields[0] != "Z":
            found[int(entry.name)] = int(fields[1])
    return found


def descendants(root: int) -> set[int]:
    parents = children()
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    return pids & set(children())


STOPS = {
    "sigterm-to-the-group": (os.killpg, signal.SIGTERM),
    "ctrl-c": (os.killpg, signal.SIGINT),
    "sigterm-to-the-process": (os.kill, signal.SIGTERM),  # a supervisor that signals its child
}


@pytest.mark.parametrize("stop", STOPS.values(), ids=STOPS.keys())
def test_a_stop_signal_stops_web_worker_and_beat(tmp_path, stop):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(ASSAY_DATA_DIR=str(tmp_path), ASSAY_WORKER_HEARTBEAT_S="1")
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "assay_run", "--addr", f"127.0.0.1:{port}", "--no-demo"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        # a live worker: its node, pool and beat are all running
        health_when(
            f"http://127.0.0.1:{port}/healthz?sandbox=0",
            time.monotonic() + 120,
            lambda body: body["workers"]["ok"],
        )
        started = descendants(process.pid)
        assert len(started) >= 3, "a worker node, its pool and its beat"
    finally:
        send, signum = stop
        send(process.pid, signum)
        stopping = time.monotonic()
    # generous bounds (a loaded machine), not a speed claim
    output = process.communicate(timeout=90)[0].decode(errors="replace")
    deadline = time.monotonic() + 30
    while alive(started) and time.monotonic() < deadline:
        time.sleep(0.3)
    assert alive(started) == set(), output[-2000:]
    print(f"stopped in {time.monotonic() - stopping:.1f} s")
