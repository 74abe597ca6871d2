"""The zygote: a clean, long-lived process that forks one locked-down child per batch.

Started by the host as `python -I -c <boot> <package root> <control fd> [--bwrap]` with an empty
environment. It never imports Django and holds no secrets. It enters a network namespace (unless
bubblewrap already did), drops to nobody when root, pre-imports RestrictedPython and QuickJS so
children fork warm, then serves requests on a SOCK_SEQPACKET control socket:

- {"op": "run"} with two fds (batch input read end, result write end) -> {"pid": N}
- {"op": "reap", "pid": N} -> {"exit": code} or {"signal": signum}

Results never pass through the zygote: the child writes them straight to the host's pipe.
"""

from __future__ import annotations

import gc
import json
import os
import signal
import socket
import sys
import tempfile
import time
from typing import Any

from sandbox import isolation

REAP_GRACE_S = 2.0


def setup(in_bwrap: bool) -> dict[str, Any]:
    """Enter the namespace, pre-import, drop privileges; return what was reached.

    Imports come before the uid drop: the interpreter's files may not be readable by nobody.
    """
    how = "bubblewrap" if in_bwrap else isolation.enter_network_namespace()
    preload()
    was_root = os.geteuid() == 0
    dropped = isolation.drop_privileges()
    return {
        "bubblewrap": in_bwrap,
        "network_namespace": bool(how) and isolation.network_isolated(),
        "network_namespace_via": how or "not permitted",
        "uid": os.getuid(),
        "uid_dropped": was_root and dropped,
        "unprivileged": os.geteuid() != 0,
    }


def preload() -> None:
    """Import everything a child needs, so a fork pays no imports (and none can fail later,
    e.g. after the uid drop made the interpreter's directories unreadable)."""
    import _strptime  # noqa: F401 - datetime.strptime imports it lazily
    import encodings.idna  # noqa: F401 - socket address parsing imports it lazily
    import unicodedata  # noqa: F401

    from sandbox import child, jsrun, pyrun

    child.warm_up()
    assert jsrun and pyrun
    gc.collect()
    gc.freeze()  # keep the pre-imported heap out of every child's collections (fewer COW copies)


BWRAP_WORKDIR = "/evaluator"


def make_workdir(in_bwrap: bool) -> str:
    """An empty directory the children use as their working directory (read-only to them).

    Under bubblewrap it already exists (created read-only by the command line).
    """
    if in_bwrap:
        return BWRAP_WORKDIR
    path = tempfile.mkdtemp(prefix="assay-sandbox-")
    os.chmod(path, 0o500)
    return path


class Zygote:
    """Serves the control socket until the host closes it."""

    def __init__(self, sock: socket.socket, workdir: str) -> None:
        self.sock = sock
        self.workdir = workdir
        self.children: set[int] = set()

    def serve(self) -> None:
        """Answer requests until end of stream, then kill every remaining child."""
        try:
            while self._serve_one():
                pass
        finally:
            self.shutdown()

    def _serve_one(self) -> bool:
        try:
            data, fds, _flags, _addr = socket.recv_fds(self.sock, 65536, 4)
        except OSError:
            return False
        if not data:
            return False
        try:
            reply = self._handle(json.loads(data), fds)
        finally:
            for fd in fds:
                os.close(fd)
        self.sock.send(json.dumps(reply).encode())
        return True

    def _handle(self, message: dict[str, Any], fds: list[int]) -> dict[str, Any]:
        if message.get("op") == "run" and len(fds) == 2:
            return {"pid": self._fork(fds)}
        if message.get("op") == "reap" and message.get("pid") in self.children:
            return self._reap(message["pid"])
        return {"error": "bad request"}

    def _fork(self, fds: list[int]) -> int:
        pid = os.fork()
        if pid == 0:  # the batch child never returns into the zygote loop
            code = 70
            try:
                from sandbox import child

                self.sock.close()
                code = child.main(fds[0], fds[1], self.workdir)
            finally:
                os._exit(code)
        self.children.add(pid)
        return pid

    def _reap(self, pid: int) -> dict[str, Any]:
        deadline = time.monotonic() + REAP_GRACE_S
        done, status = os.waitpid(pid, os.WNOHANG)
        while not done and time.monotonic() < deadline:
            time.sleep(0.001)
            done, status = os.waitpid(pid, os.WNOHANG)
        if not done:
            _kill_group(pid)
            done, status = os.waitpid(pid, 0)
        self.children.discard(pid)
        if os.WIFSIGNALED(status):
            return {"signal": os.WTERMSIG(status)}
        return {"exit": os.waitstatus_to_exitcode(status)}

    def shutdown(self) -> None:
        """Kill and reap every child, remove the work directory."""
        for pid in list(self.children):
            _kill_group(pid)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        self.children.clear()
        try:
            os.rmdir(self.workdir)
        except OSError:
            pass


def _kill_group(pid: int) -> None:
    for kill, target in ((os.killpg, pid), (os.kill, pid)):
        try:
            kill(target, signal.SIGKILL)
        except OSError:
            pass


def main(argv: list[str]) -> None:
    """Entry point: argv is [control fd] plus an optional '--bwrap'."""
    sock = socket.socket(fileno=int(argv[0]))
    report = setup("--bwrap" in argv)
    workdir = make_workdir("--bwrap" in argv)
    sock.send(json.dumps({"hello": report, "pid": os.getpid()}).encode())
    Zygote(sock, workdir).serve()
    sys.exit(0)
