"""Isolated execution of user-written code evaluators (Python and JavaScript).

Plain Python, no Django. Public API:

    execute(language, source, turns, *, timeout_s=5.0, memory_mb=256, require_netns=None)
        -> list[Outcome]
    check(language, source, *, timeout_s=5.0, memory_mb=256) -> CheckResult
    isolation_report() -> dict

Layers: RestrictedPython or quickjs-ng (language), then a locked-down child forked from a clean
zygote (process: network namespace, unprivileged uid, bubblewrap where installed, rlimits, a
wall-clock kill), then strict validation of every result in the host. See docs/design/sandbox.md.
"""

from __future__ import annotations

import math
from typing import Any

from sandbox.host import MANAGER, SandboxUnavailable
from sandbox.limits import (
    LANGUAGES,
    MAX_MEMORY_MB,
    MAX_TIMEOUT_S,
    MIN_MEMORY_MB,
    MIN_TIMEOUT_S,
    STARTUP_ALLOWANCE_S,
)
from sandbox.outcome import CheckResult, Outcome
from sandbox.runner import Cancelled, one_shot, run_batch

__all__ = [
    "Cancelled",
    "CheckResult",
    "Outcome",
    "SandboxUnavailable",
    "check",
    "execute",
    "isolation_report",
]

NETNS_REQUIRED = (
    "sandbox refused to run: a network namespace is required (require_netns) but could not be "
    "entered on this host"
)


def execute(
    language: str,
    source: str,
    turns: list[Any],
    *,
    timeout_s: float = 5.0,
    memory_mb: int = 256,
    require_netns: bool | None = None,
    cancel: Any = None,
) -> list[Outcome]:
    """Run `exec_evaluation(turn)` from `source` on every turn; one Outcome per turn, in order.

    All turns run in one child forked from the zygote, each with fresh state; a turn that
    exceeds `timeout_s` becomes `timeout` and the rest continue in a new child. `cancel`
    (a threading.Event) kills the running child when set and raises `Cancelled`.
    """
    _validate(language, timeout_s, memory_mb)
    turns = list(turns)
    if not turns:
        return []
    try:
        zygote = MANAGER.get()
    except SandboxUnavailable as exc:
        return [Outcome("error", error=f"sandbox unavailable: {exc}") for _ in turns]
    if require_netns and not zygote.report.get("network_namespace"):
        return [Outcome("refused", error=NETNS_REQUIRED) for _ in turns]
    return run_batch(language, source, turns, float(timeout_s), int(memory_mb), cancel)


def check(
    language: str, source: str, *, timeout_s: float = 5.0, memory_mb: int = 256
) -> CheckResult:
    """Check source for submit/debug inside the sandbox: syntax (with user line numbers),
    allowed imports, and that exec_evaluation is defined."""
    _validate(language, timeout_s, memory_mb)
    header = {
        "mode": "check",
        "language": language,
        "source": source,
        "timeout_s": float(timeout_s),
        "memory_mb": int(memory_mb),
    }
    try:
        answer = one_shot(header, "check", STARTUP_ALLOWANCE_S + timeout_s)
    except SandboxUnavailable as exc:
        return CheckResult(False, [{"line": None, "message": f"sandbox unavailable: {exc}"}])
    if not isinstance(answer, dict) or not isinstance(answer.get("errors"), list):
        message = "the check did not finish within the time limit"
        return CheckResult(False, [{"line": None, "message": message}])
    errors = [_clean_error(e) for e in answer["errors"][:50]]
    return CheckResult(not errors, errors)


def _clean_error(error: Any) -> dict[str, Any]:
    if not isinstance(error, dict):
        return {"line": None, "message": "malformed check error"}
    line = error.get("line")
    message = error.get("message")
    return {
        "line": line if isinstance(line, int) and not isinstance(line, bool) else None,
        "message": message[:2000] if isinstance(message, str) else "malformed check error",
    }


def isolation_report() -> dict[str, Any]:
    """What isolation this host reaches (for /healthz and the test log).

    Keys: level ("strong" | "standard" | "degraded"), bubblewrap, network_namespace, uid_dropped,
    unprivileged, and `child`: what a locked-down child observed when it tried to fork, write a
    file, reach the network, and which rlimits it had.
    """
    try:
        zygote = MANAGER.get()
        if not zygote.probe:  # probed once per zygote; a failed probe is tried again next time
            zygote.probe = one_shot({"mode": "probe", "memory_mb": 64}, "probe", 10.0)
    except SandboxUnavailable as exc:
        return {"level": "unavailable", "error": str(exc)}
    report = dict(zygote.report, child=zygote.probe or {})
    report["level"] = _level(report)
    return report


def _level(report: dict[str, Any]) -> str:
    child = report.get("child") or {}
    contained = report.get("network_namespace") and report.get("unprivileged")
    locked = child.get("fork_blocked") and child.get("file_writes_blocked")
    if contained and locked:
        return "strong" if report.get("bubblewrap") else "standard"
    return "degraded"


def _validate(language: str, timeout_s: float, memory_mb: int) -> None:
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}")
    if not (isinstance(timeout_s, int | float) and math.isfinite(timeout_s)):
        raise ValueError("timeout_s must be a finite number")
    if not MIN_TIMEOUT_S <= timeout_s <= MAX_TIMEOUT_S:
        raise ValueError(f"timeout_s must be within [{MIN_TIMEOUT_S}, {MAX_TIMEOUT_S}]")
    if not MIN_MEMORY_MB <= int(memory_mb) <= MAX_MEMORY_MB:
        raise ValueError(f"memory_mb must be within [{MIN_MEMORY_MB}, {MAX_MEMORY_MB}]")
