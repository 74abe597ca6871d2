"""OS isolation: bubblewrap command line, network namespace, dropping to an unprivileged uid.

Used on both sides: the host builds the bubblewrap command, the zygote enters what bubblewrap
did not already give it and reports what it reached. Everything degrades instead of failing: a
laptop without namespaces still runs evaluators (with rlimits and the wall clock), and
`isolation_report()` says so; production can refuse to run with `require_netns`.
"""

from __future__ import annotations

import ctypes
import errno
import os
import shutil
import socket
import sys
from pathlib import Path

CLONE_NEWNET = 0x40000000
CLONE_NEWUSER = 0x10000000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
NOBODY = 65534

_libc = ctypes.CDLL(None, use_errno=True)


def _call(func: str, *args: int) -> int:
    """Call a libc function; return 0 or the errno it failed with."""
    if getattr(_libc, func)(*args) == 0:
        return 0
    return ctypes.get_errno() or errno.EPERM


def set_no_new_privs() -> bool:
    """prctl(PR_SET_NO_NEW_PRIVS): no setuid binary or file capability can raise privileges."""
    return _call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0


def set_parent_death_signal(signum: int) -> bool:
    """Die with `signum` when the parent (the zygote) goes away."""
    return _call("prctl", PR_SET_PDEATHSIG, signum, 0, 0, 0) == 0


# ---------------------------------------------------------------- zygote side


def enter_network_namespace() -> str:
    """Move this process into a new, empty network namespace; return how, or '' if it failed.

    As root CLONE_NEWNET is enough; otherwise an unprivileged user namespace owns the new
    network namespace (this uid mapped to itself).
    """
    if _call("unshare", CLONE_NEWNET) == 0:
        return "unshare(CLONE_NEWNET)"
    uid, gid = os.getuid(), os.getgid()
    if _call("unshare", CLONE_NEWUSER | CLONE_NEWNET) != 0:
        return ""
    try:
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    except OSError:
        pass  # the namespaces exist either way; only the id mapping is cosmetic here
    return "unshare(CLONE_NEWUSER|CLONE_NEWNET)"


def drop_privileges() -> bool:
    """When root, become nobody (uid/gid 65534, no groups); True if we run unprivileged now."""
    if os.geteuid() != 0:
        return True
    try:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    except OSError:
        return False
    return os.geteuid() != 0


def network_isolated() -> bool:
    """True when no interface but loopback exists and an outside address is unreachable."""
    try:
        lines = Path("/proc/self/net/dev").read_text().splitlines()[2:]
    except OSError:
        lines = []
    names = {line.split(":", 1)[0].strip() for line in lines}
    if names - {"lo"}:
        return False
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent by a UDP connect
    except OSError:
        return True
    finally:
        probe.close()
    return False


# ---------------------------------------------------------------- host side


def bwrap_path() -> str | None:
    """The bubblewrap binary, if installed."""
    return shutil.which("bwrap")


def bwrap_command(package_root: str) -> list[str]:
    """bubblewrap arguments: new net/ipc/uts namespaces, a read-only view of only what Python
    needs (no /etc, no /home, no project files besides the sandbox package), a private /tmp.

    The pid namespace is shared on purpose: the host kills batch children by pid.
    """
    args = [
        bwrap_path() or "bwrap",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--new-session",
        "--clearenv",
    ]
    if os.geteuid() != 0:
        args.append("--unshare-user")
    # The private /tmp comes first: a checkout or virtualenv that lives under /tmp is then
    # bound on top of it instead of being hidden by it.
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    made: set[str] = set()
    for source in _bind_sources(package_root):
        args += _parent_dirs(source, made)
        args += ["--ro-bind", source, source]
    return args + ["--perms", "0555", "--dir", "/evaluator", "--chdir", "/"]


def _bind_sources(package_root: str) -> list[str]:
    paths = {"/usr", "/bin", "/lib", "/lib64", "/lib32", "/libx32", sys.prefix, sys.base_prefix}
    paths.add(str(Path(sys.executable).resolve().parent.parent))
    paths.add(str(Path(package_root) / "sandbox"))
    paths.update(p for p in sys.path if p.endswith("site-packages"))
    real = {str(Path(p).resolve()) for p in paths if Path(p).exists()}
    real |= {p for p in paths if Path(p).exists()}
    # Bind outer directories first; a path inside one already bound is covered by it.
    ordered = sorted(real, key=lambda p: (p.count("/"), p))
    kept: list[str] = []
    for path in ordered:
        if not any(path == k or path.startswith(k + "/") for k in kept):
            kept.append(path)
    return kept


def _parent_dirs(path: str, made: set[str]) -> list[str]:
    # bubblewrap copies the mode of a bind's parents (e.g. /root is 0700); after dropping to
    # nobody the interpreter could not be reached, so parents are created world-traversable.
    args: list[str] = []
    for parent in reversed(Path(path).parents):
        text = str(parent)
        if text != "/" and text not in made:
            made.add(text)
            args += ["--perms", "0755", "--dir", text]
    return args
