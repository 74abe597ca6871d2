"""The batch child: forked from the zygote, locked down, runs one evaluator over a chunk of turns.

Protocol on the result pipe (length-prefixed JSON, see framing.py), in order:
- {"ready": true} once the source compiled, or {"refused": [errors]} and nothing else;
- {"r": [record]} after every turn, record = [status, score, reason, stdout, error, ms];
- {"end": "done"} or {"end": "recycle"} (after a memory error: the host resumes in a new child).
Check and probe requests answer with a single {"check": ...} or {"probe": ...} frame.
"""

from __future__ import annotations

import json
import math
import os
import resource
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sandbox import framing, isolation, jsrun, pyrun
from sandbox.limits import MAX_OPEN_FILES, MAX_REQUEST_BYTES
from sandbox.outcome import reason_problem, score_problem

JS_HEAP_MARGIN_MB = 64


def warm_up() -> None:
    """Run each engine once in the zygote so children fork with every lazy path initialised."""
    code, _ = pyrun.compile_source("def exec_evaluation(turn):\n    return 1.0\n")
    pyrun.PythonEvaluator(code).run({})
    jsrun.JsEvaluator("function exec_evaluation(t) { return 1; }", 1.0, 16).run("{}")


# ---------------------------------------------------------------- lock-down


def lock_down(workdir: str, out_fd: int, memory_mb: int, extra_mb: int) -> None:
    """Apply the per-batch limits: no files written, no processes, few fds, capped memory."""
    os.chdir(workdir)
    os.closerange(3, out_fd)
    os.closerange(out_fd + 1, 4096)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write then fails with EFBIG instead
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (MAX_OPEN_FILES, MAX_OPEN_FILES))
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # only enforced for non-root: see zygote
    limit = _address_space_bytes() + (memory_mb + extra_mb) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    isolation.set_no_new_privs()


def _address_space_bytes() -> int:
    # The interpreter and pre-imported engines already occupy address space; the evaluator's
    # budget comes on top of what the child has at this point.
    pages = int(Path("/proc/self/statm").read_text().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE")


class CpuBudget:
    """RLIMIT_CPU as a second line behind the host's wall clock, kept per turn.

    The soft limit (SIGXCPU) always leaves the running turn at least timeout + 1 CPU seconds,
    and is raised only occasionally, so a turn costs one clock read.
    """

    def __init__(self, timeout_s: float, turns: int) -> None:
        self.step = math.ceil(timeout_s) + 1
        self.hard = int(time.process_time()) + 2 * self.step * (turns + 1) + 10
        self.soft = 0
        self.extend()

    def extend(self) -> None:
        """Make sure the next turn has its full CPU allowance."""
        used = time.process_time()
        if used + self.step > self.soft:
            self.soft = min(int(used) + 2 * self.step, self.hard)
            resource.setrlimit(resource.RLIMIT_CPU, (self.soft, self.hard))


# ---------------------------------------------------------------- running a batch


def finish_record(
    status: str, score: Any, reason: Any, stdout: str, error: str, started: float
) -> list[Any]:
    """Validate an ok result here too, so the user sees the precise reason it was rejected."""
    duration_ms = (time.perf_counter() - started) * 1000.0
    if status == "ok":
        problem = score_problem(score) or reason_problem(reason)
        if problem:
            return ["error", None, "", stdout, problem, duration_ms]
        score = None if score is None else float(score)
    return [status, score, reason if status == "ok" else "", stdout, error, duration_ms]


def make_runner(request: dict[str, Any]) -> tuple[Any, list[dict[str, Any]]]:
    """(turn -> result tuple, compile errors) for the request's language."""
    if request["language"] == "python":
        code, errors = pyrun.compile_source(request["source"])
        return (pyrun.PythonEvaluator(code).run if code else None), errors
    evaluator = jsrun.JsEvaluator(request["source"], request["timeout_s"], request["memory_mb"])
    errors = evaluator.check()
    return (lambda turn: evaluator.run(json.dumps(turn))), errors


def run_turn(runner: Any, turn: Any) -> list[Any]:
    """One turn, whatever happens inside it: always a record."""
    started = time.perf_counter()
    try:
        status, score, reason, stdout, error = runner(turn)
    except MemoryError:
        status, score, reason, stdout, error = "memory", None, "", "", "memory limit exceeded"
    except Exception as exc:  # the harness itself failed (e.g. a JS result it cannot parse)
        status, score, reason, stdout, error = "error", None, "", "", f"sandbox error: {exc}"
    return finish_record(status, score, reason, stdout, error, started)


def run_batch(request: dict[str, Any], out_fd: int) -> int:
    """Compile once, then run every turn with fresh state; each result is written at once."""
    runner, errors = make_runner(request)
    if errors:
        framing.write_frame(out_fd, {"refused": errors})
        return 0
    framing.write_frame(out_fd, {"ready": True})
    budget = CpuBudget(request["timeout_s"], len(request["turns"]))
    for turn in request["turns"]:
        budget.extend()
        record = run_turn(runner, turn)
        framing.write_all(out_fd, framing.encode_result(record))
        if record[0] == "memory":  # the heap may be fragmented: continue in a new child
            framing.write_frame(out_fd, {"end": "recycle"})
            return 0
    framing.write_frame(out_fd, {"end": "done"})
    return 0


def check(request: dict[str, Any]) -> dict[str, Any]:
    """Syntax, allowed imports and a defined exec_evaluation, computed in here."""
    _runner, errors = make_runner(request)
    return {"ok": not errors, "errors": errors}


# ---------------------------------------------------------------- probe


def probe() -> dict[str, Any]:
    """Try, from inside a locked-down child, what an escaped evaluator would try first."""
    return {
        "fork_blocked": _fork_blocked(),
        "file_writes_blocked": _file_writes_blocked(),
        "network_unreachable": _network_unreachable(),
        "environment": sorted(os.environ),
        "uid": os.getuid(),
        "django_loaded": "django" in sys.modules,
        "no_new_privs": "NoNewPrivs:\t1" in Path("/proc/self/status").read_text(),
        "rlimits": {
            name: resource.getrlimit(getattr(resource, f"RLIMIT_{name.upper()}"))[0]
            for name in ("as", "cpu", "fsize", "nofile", "nproc", "core")
        },
    }


def _fork_blocked() -> bool:
    try:
        pid = os.fork()
    except OSError:
        return True
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return False


def _file_writes_blocked() -> bool:
    try:
        with tempfile.TemporaryFile() as handle:
            handle.write(b"x")
            handle.flush()
    except OSError:
        return True
    return False


def _network_unreachable() -> bool:
    try:
        with socket.create_connection(("192.0.2.1", 80), timeout=0.2):
            return False
    except OSError:
        return True


# ---------------------------------------------------------------- entry point


def main(in_fd: int, out_fd: int, workdir: str) -> int:
    """Run one request; the return value is the child's exit code."""
    os.setsid()  # own process group: the host kills the whole group at the deadline
    isolation.set_parent_death_signal(signal.SIGKILL)
    request = framing.read_frame(in_fd, MAX_REQUEST_BYTES)
    os.close(in_fd)
    memory_mb = int(request.get("memory_mb", 64))
    extra = JS_HEAP_MARGIN_MB if request.get("language") == "javascript" else 0
    lock_down(workdir, out_fd, memory_mb, extra)
    mode = request["mode"]
    if mode == "probe":
        framing.write_frame(out_fd, {"probe": probe()})
    elif mode == "check":
        framing.write_frame(out_fd, {"check": check(request)})
    else:
        return run_batch(request, out_fd)
    return 0
