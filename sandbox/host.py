"""Host side: the zygote's lifecycle and the control channel to it.

Each host process (web or worker) owns one zygote, started lazily, restarted if it dies, and
replaced after the host forks (a prefork worker never shares its parent's zygote). Access to
the control socket is serialised by a lock; the batches themselves run in parallel children.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from sandbox import isolation

PACKAGE_ROOT = str(Path(__file__).resolve().parent.parent)
STARTUP_TIMEOUT_S = 30.0
CONTROL_TIMEOUT_S = 10.0
BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from sandbox.zygote import main; main(sys.argv[2:])"
)


class SandboxUnavailable(Exception):
    """The zygote could not be started or stopped answering."""


class ZygoteProcess:
    """One running zygote and its control socket."""

    def __init__(self, proc: subprocess.Popen, sock: socket.socket, hello: dict[str, Any]):
        self.proc = proc
        self.sock = sock
        self.report: dict[str, Any] = hello["hello"]
        self.probe: dict[str, Any] | None = None
        self.owner_pid = os.getpid()
        self.lock = threading.Lock()
        self.broken = False

    @classmethod
    def start(cls, use_bwrap: bool) -> ZygoteProcess:
        """Exec a fresh interpreter (never a fork of this process): `python -I`, empty env."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        command = [sys.executable, "-I", "-c", BOOT, PACKAGE_ROOT, str(theirs.fileno())]
        if use_bwrap:
            command = isolation.bwrap_command(PACKAGE_ROOT) + ["--", *command, "--bwrap"]
        errors = tempfile.TemporaryFile()
        try:
            proc = subprocess.Popen(
                command,
                env={},
                cwd="/",
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=errors,
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        finally:
            theirs.close()
        hello = _await_hello(ours, proc, errors)
        return cls(proc, ours, hello)

    def alive(self) -> bool:
        """Usable by this process: running, not broken, and not inherited through a fork."""
        return not self.broken and self.owner_pid == os.getpid() and self.proc.poll() is None

    def request(self, message: dict[str, Any], fds: list[int] = ()) -> dict[str, Any]:
        """Send one control message (with fds) and wait for the reply."""
        with self.lock:
            try:
                socket.send_fds(self.sock, [json.dumps(message).encode()], list(fds))
                data = self.sock.recv(65536)
            except OSError as exc:
                self.broken = True
                raise SandboxUnavailable(f"sandbox zygote stopped answering: {exc}") from None
        if not data:
            self.broken = True
            raise SandboxUnavailable("sandbox zygote exited")
        return json.loads(data)

    def spawn(self) -> tuple[int, int, int]:
        """Fork a batch child: (pid, fd to write its input, fd to read its results)."""
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            reply = self.request({"op": "run"}, [in_r, out_w])
        except SandboxUnavailable:
            os.close(in_w)
            os.close(out_r)
            raise
        finally:
            os.close(in_r)
            os.close(out_w)
        if "pid" not in reply:
            os.close(in_w)
            os.close(out_r)
            raise SandboxUnavailable(f"sandbox zygote refused to fork: {reply}")
        return int(reply["pid"]), in_w, out_r

    def finish(self, pid: int) -> dict[str, Any]:
        """Kill the child's process group (harmless if it already exited) and reap it."""
        kill_group(pid)
        try:
            return self.request({"op": "reap", "pid": pid})
        except SandboxUnavailable:
            return {"error": "sandbox zygote died"}

    def close(self) -> None:
        """Closing the control socket makes the zygote kill its children and exit."""
        self.broken = True
        try:
            self.sock.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


def kill_group(pid: int) -> None:
    """SIGKILL a child's process group, and the pid itself in case setsid has not run yet."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except OSError:
            pass


def _await_hello(sock: socket.socket, proc: subprocess.Popen, errors: Any) -> dict[str, Any]:
    sock.settimeout(STARTUP_TIMEOUT_S)
    try:
        data = sock.recv(65536)
    except OSError:
        data = b""
    if not data:
        proc.kill()
        proc.wait()
        errors.seek(0)
        tail = errors.read()[-2000:].decode("utf-8", "replace").strip()
        raise SandboxUnavailable(f"sandbox zygote failed to start: {tail or 'no output'}")
    sock.settimeout(CONTROL_TIMEOUT_S)
    return json.loads(data)


class ZygoteManager:
    """Lazily starts the zygote, restarts it when it died, and hands it out thread-safely."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.zygote: ZygoteProcess | None = None
        self.bwrap_error = ""

    def get(self) -> ZygoteProcess:
        """The live zygote, starting one if needed."""
        with self.lock:
            if self.zygote is None or not self.zygote.alive():
                if self.zygote is not None:
                    self._retire(self.zygote)
                self.zygote = self._start()
            return self.zygote

    @staticmethod
    def _retire(zygote: ZygoteProcess) -> None:
        if zygote.owner_pid == os.getpid():
            zygote.close()
        else:  # inherited through a fork: drop our copy of the socket, leave the parent's zygote
            zygote.broken = True
            zygote.sock.close()

    def _start(self) -> ZygoteProcess:
        if isolation.bwrap_path() and not self.bwrap_error:
            try:
                return ZygoteProcess.start(use_bwrap=True)
            except SandboxUnavailable as exc:
                self.bwrap_error = str(exc)  # e.g. namespaces forbidden in this container
        zygote = ZygoteProcess.start(use_bwrap=False)
        if self.bwrap_error:
            zygote.report["bubblewrap_error"] = self.bwrap_error
        return zygote

    def shutdown(self) -> None:
        """Stop the zygote owned by this process (at interpreter exit)."""
        with self.lock:
            if self.zygote is not None and self.zygote.owner_pid == os.getpid():
                self.zygote.close()
            self.zygote = None


MANAGER = ZygoteManager()
atexit.register(MANAGER.shutdown)
