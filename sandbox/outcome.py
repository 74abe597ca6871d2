"""Result types and the validation every result passes before it leaves the sandbox package.

The same score/reason checks run twice: in the child (so the user gets a precise message) and in
the host (because the child is untrusted: whatever it sends is re-validated, never trusted).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from sandbox.limits import (
    MAX_ERROR_CHARS,
    MAX_REASON_BYTES,
    MAX_RESULT_BYTES,
    MAX_STDOUT_CHARS,
    STATUSES,
    TRUNCATION_MARKER,
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one turn produced: a status, a score in [0, 1] or None (unknown), and the text."""

    status: str
    score: float | None = None
    reason: str = ""
    stdout: str = ""
    error: str = ""
    duration_ms: float = 0.0

    @property
    def ok(self) -> bool:
        """True when the evaluator ran and returned a valid result."""
        return self.status == "ok"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Outcome of `sandbox.check`: ok, or a list of {line, message} errors."""

    ok: bool
    errors: list[dict[str, Any]] = field(default_factory=list)


def score_problem(score: Any) -> str | None:
    """Say what is wrong with a score, or None when it is a finite number in [0, 1] or None."""
    if score is None:
        return None
    if isinstance(score, bool) or not isinstance(score, int | float):
        return f"score must be a number in [0, 1] or None, got {type(score).__name__}"
    try:
        value = float(score)
    except OverflowError:
        return "score is too large"
    if not math.isfinite(value):
        return f"score must be a finite number, got {value!r}"
    if not 0.0 <= value <= 1.0:
        return f"score {value!r} is outside [0, 1]"
    return None


def reason_problem(reason: Any) -> str | None:
    """Say what is wrong with a reason, or None when it is a string within the size cap."""
    if not isinstance(reason, str):
        return f"reason must be a string, got {type(reason).__name__}"
    if len(reason) > MAX_REASON_BYTES // 4 and len(reason.encode("utf-8", "replace")) > (
        MAX_REASON_BYTES
    ):
        return f"reason is longer than {MAX_REASON_BYTES // 1024} KB"
    return None


def cap_text(text: str, limit: int) -> str:
    """Cut text to `limit` characters, marking the cut so nobody mistakes it for the whole."""
    if len(text) <= limit:
        return text
    return text[:limit] + TRUNCATION_MARKER


def outcome_from_record(record: Any) -> Outcome:
    """Validate one record sent by a child and turn it into an Outcome (host side).

    A record is [status, score, reason, stdout, error, duration_ms]. Anything malformed becomes
    an `error` outcome; a bad score is rejected, never clamped.
    """
    if not isinstance(record, list) or len(record) != 6:
        return Outcome("error", error="sandbox sent a malformed result")
    status, score, reason, stdout, error, duration = record
    if status not in STATUSES or not (isinstance(stdout, str) and isinstance(error, str)):
        return Outcome("error", error="sandbox sent a malformed result")
    if not isinstance(duration, int | float) or isinstance(duration, bool):
        duration = 0.0
    stdout = cap_text(stdout, MAX_STDOUT_CHARS)
    error = cap_text(error, MAX_ERROR_CHARS)
    if status != "ok":
        return Outcome(status, None, "", stdout, error or status, float(duration))
    problem = score_problem(score) or reason_problem(reason) or _size_problem(reason, stdout)
    if problem:
        return Outcome("error", None, "", stdout, problem, float(duration))
    score = None if score is None else float(score)
    return Outcome("ok", score, reason, stdout, "", float(duration))


def _size_problem(reason: str, stdout: str) -> str | None:
    if len(reason) + len(stdout) > MAX_RESULT_BYTES:
        return f"result is larger than {MAX_RESULT_BYTES // 1024} KB"
    return None
