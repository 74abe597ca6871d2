"""Host side of a batch: send turns to a child, enforce the wall clock, validate every result.

A runaway turn k is killed at its deadline, recorded as `timeout`, and the batch continues from
k + 1 in a new child; a memory error or a crash is handled the same way. Results already written
by the killed child are drained from the pipe first, so no finished turn is blamed.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from typing import Any

from sandbox import framing
from sandbox.host import MANAGER, SandboxUnavailable, ZygoteProcess, kill_group
from sandbox.limits import (
    DEADLINE_SLACK_S,
    MAX_ERROR_CHARS,
    MAX_FRAME_BYTES,
    MAX_TURN_JSON_BYTES,
    STARTUP_ALLOWANCE_S,
)
from sandbox.outcome import Outcome, cap_text, outcome_from_record

DRAIN_TIMEOUT_MS = 1000
CANCEL_POLL_S = 0.1


class ProtocolError(Exception):
    """The child sent something it must not send."""


class Cancelled(Exception):
    """The caller's cancel event was set: the running child was killed mid-batch."""


class _Pipe:
    """The child's output pipe, read as frames (a batch's results, a check's answer)."""

    def __init__(self, fd: int):
        self.fd = fd
        self.poller = select.poll()
        self.poller.register(fd, select.POLLIN | select.POLLHUP)
        self.reader = framing.FrameReader(MAX_FRAME_BYTES)

    def frames(self, wait_s: float) -> list[Any] | None:
        """The frames complete after waiting up to ``wait_s`` for bytes ([] when none are);
        None at the end of the stream."""
        if not self.poller.poll(wait_s * 1000):
            return []
        data = os.read(self.fd, 1 << 20)
        return self.reader.feed(data) if data else None


# A turn orjson writes in at most this many bytes is within the limit as the stdlib writes it
# too (ASCII escapes take at most six characters a byte); a larger one is measured as before.
FAST_TURN_BYTES = MAX_TURN_JSON_BYTES // 6


def encode_turn(turn: Any) -> bytes | Outcome:
    """A turn as JSON bytes, or the error Outcome that replaces a turn which cannot be sent."""
    data = framing.dumps_fast(turn)
    if data is not None and len(data) <= FAST_TURN_BYTES:
        return data
    try:
        text = framing.ENCODER.encode(turn)
    except (TypeError, ValueError) as exc:
        return Outcome("error", error=f"turn is not JSON-serialisable: {exc}")
    if len(text) > MAX_TURN_JSON_BYTES:
        return Outcome("error", error=f"turn input exceeds {MAX_TURN_JSON_BYTES // 2**20} MB")
    return text.encode()


def request_bytes(header: dict[str, Any], turns: list[bytes]) -> bytes:
    """One input frame: the header plus the already-encoded turns (no re-encoding per child)."""
    data = b"".join((json.dumps(header)[:-1].encode(), b',"turns":[', b",".join(turns), b"]}"))
    return framing.HEADER.pack(len(data)) + data


def format_errors(errors: Any) -> str:
    """Child-reported check errors as 'line N: message' lines (validated, capped)."""
    if not isinstance(errors, list):
        return "sandbox sent malformed errors"
    lines = []
    for item in errors[:50]:
        if isinstance(item, dict) and isinstance(item.get("message"), str):
            line = item.get("line")
            prefix = f"line {line}: " if isinstance(line, int) and line > 0 else ""
            lines.append(prefix + item["message"])
    return cap_text("\n".join(lines), MAX_ERROR_CHARS)


class ChildRun:
    """One child working through turns[first:]; fills outcomes as results arrive."""

    def __init__(
        self,
        zygote: ZygoteProcess,
        outcomes: list[Outcome | None],
        first: int,
        timeout_s: float,
        cancel=None,
    ) -> None:
        self.zygote = zygote
        self.cancel = cancel
        self.outcomes = outcomes
        self.index = first
        self.timeout_s = timeout_s
        self.end: str | None = None
        self.turn_started = time.monotonic()
        self.deadline = self.turn_started + STARTUP_ALLOWANCE_S + timeout_s
        # A compromised child could keep resetting the per-turn deadline with empty frames;
        # the whole child never gets more than every remaining turn's allowance.
        turns_left = len(outcomes) - first
        self.hard_deadline = self.deadline + turns_left * (timeout_s + DEADLINE_SLACK_S)

    def run(self, payload: bytes) -> int:
        """Run the child to its end; return the index the batch continues from."""
        pid, in_w, out_r = self.zygote.spawn()
        try:
            _send(in_w, payload)
            try:
                killed = self._read(out_r, pid)
            except (ProtocolError, framing.FrameError) as exc:
                self.zygote.finish(pid)
                return self._blame(Outcome("error", error=f"sandbox protocol violation: {exc}"))
            except Cancelled:
                self.zygote.finish(pid)
                raise
        finally:
            os.close(out_r)
        status = self.zygote.finish(pid)
        return self._next(killed, status)

    def _read(self, out_r: int, pid: int) -> bool:
        """Read frames until end of stream; True if the wall clock had to kill the child."""
        pipe = _Pipe(out_r)
        while True:
            if self.cancel is not None and self.cancel.is_set():
                kill_group(pid)
                raise Cancelled("the batch was cancelled")
            wait = self.deadline - time.monotonic()
            if wait <= 0:
                kill_group(pid)
                self._drain(pipe)
                return True
            if self.cancel is not None:
                wait = min(wait, CANCEL_POLL_S)  # look at the cancel event a few times a second
            frames = pipe.frames(wait)
            if frames is None:
                return False
            for frame in frames:
                self._apply(frame)

    def _drain(self, pipe: _Pipe) -> None:
        # The killed child may have finished turns whose results sit in the pipe. Bounded in
        # time: nothing else should hold the pipe open, but an escaped process might.
        try:
            while pipe.poller.poll(DRAIN_TIMEOUT_MS) and (data := os.read(pipe.fd, 1 << 20)):
                for frame in pipe.reader.feed(data):
                    self._apply(frame)
        except (ProtocolError, framing.FrameError):
            pass

    def _apply(self, frame: Any) -> None:
        if not isinstance(frame, dict) or len(frame) != 1:
            raise ProtocolError("unexpected frame")
        (key, value), now = next(iter(frame.items())), time.monotonic()
        if key == "r" and isinstance(value, list):
            for record in value:
                self._store(outcome_from_record(record))
        elif key == "refused":
            refusal = Outcome("refused", error=format_errors(value) or "source refused")
            while self.index < len(self.outcomes):
                self._store(refusal)
        elif key == "end" and value in ("done", "recycle"):
            self.end = value
        elif key != "ready":
            raise ProtocolError(f"unexpected frame {key!r}")
        self.turn_started = now
        self.deadline = min(now + self.timeout_s + DEADLINE_SLACK_S, self.hard_deadline)

    def _store(self, outcome: Outcome) -> None:
        if self.index >= len(self.outcomes):
            raise ProtocolError("more results than turns")
        self.outcomes[self.index] = outcome
        self.index += 1

    def _next(self, killed: bool, status: dict[str, Any]) -> int:
        if self.index >= len(self.outcomes):
            return self.index
        elapsed_ms = (time.monotonic() - self.turn_started) * 1000.0
        if killed:
            message = f"time limit of {self.timeout_s:g} s exceeded"
            return self._blame(Outcome("timeout", error=message, duration_ms=elapsed_ms))
        if self.end == "recycle":
            return self.index
        return self._blame(death_outcome(status, elapsed_ms))

    def _blame(self, outcome: Outcome) -> int:
        if self.index < len(self.outcomes):
            self.outcomes[self.index] = outcome
        return self.index + 1


def death_outcome(status: dict[str, Any], elapsed_ms: float) -> Outcome:
    """Map how a child died (no result for the running turn) to an outcome."""
    sig = status.get("signal")
    if sig == signal.SIGXCPU:
        return Outcome("timeout", error="CPU time limit exceeded", duration_ms=elapsed_ms)
    if sig == signal.SIGKILL:  # not ours (we mark those as timeouts): the OOM killer
        return Outcome("memory", error="killed: out of memory", duration_ms=elapsed_ms)
    if sig:
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
        return Outcome("error", error=f"evaluator process crashed ({name})", duration_ms=elapsed_ms)
    if "exit" in status:
        message = f"evaluator process stopped early (exit code {status['exit']})"
        return Outcome("error", error=message, duration_ms=elapsed_ms)
    return Outcome("error", error=status.get("error", "evaluator process lost"))


def _send(fd: int, payload: bytes) -> None:
    try:
        framing.write_all(fd, payload)
    except BrokenPipeError:
        pass  # the child died before reading; the result pipe tells the rest
    finally:
        os.close(fd)


# ---------------------------------------------------------------- batches and one-shot requests


def run_batch(
    language: str, source: str, turns: list[Any], timeout_s: float, memory_mb: int, cancel=None
) -> list[Outcome]:
    """Every turn's outcome, running as many children as timeouts and crashes require.

    `cancel` (anything with `is_set()`, e.g. a threading.Event) kills the child and raises
    `Cancelled` as soon as it is set.
    """
    encoded = [encode_turn(turn) for turn in turns]
    outcomes: list[Outcome | None] = [e if isinstance(e, Outcome) else None for e in encoded]
    positions = [i for i, e in enumerate(encoded) if not isinstance(e, Outcome)]
    texts = [encoded[i] for i in positions]
    header = {
        "mode": "run",
        "language": language,
        "source": source,
        "timeout_s": timeout_s,
        "memory_mb": memory_mb,
    }
    results: list[Outcome | None] = [None] * len(positions)
    first, restarts = 0, 0
    while first < len(positions):
        payload = request_bytes(header, texts[first:])
        try:
            first = ChildRun(MANAGER.get(), results, first, timeout_s, cancel).run(payload)
        except SandboxUnavailable as exc:
            restarts += 1  # the zygote died: one fresh start, then give up on the rest
            if restarts > 1:
                failed = Outcome("error", error=f"sandbox unavailable: {exc}")
                results[first:] = [r or failed for r in results[first:]]
                break
    for position, outcome in zip(positions, results, strict=True):
        outcomes[position] = outcome
    return [o or Outcome("error", error="no result") for o in outcomes]


def one_shot(header: dict[str, Any], key: str, wait_s: float) -> Any:
    """Run a check or probe request in a child and return its single answer (None on failure)."""
    zygote = MANAGER.get()
    pid, in_w, out_r = zygote.spawn()
    try:
        _send(in_w, request_bytes(header, []))
        return _read_one(out_r, key, time.monotonic() + wait_s)
    finally:
        os.close(out_r)
        zygote.finish(pid)


def _read_one(out_r: int, key: str, deadline: float) -> Any:
    pipe = _Pipe(out_r)
    while (wait := deadline - time.monotonic()) > 0:
        frames = pipe.frames(wait)
        if frames is None:
            return None
        for frame in frames:
            if isinstance(frame, dict) and key in frame:
                return frame[key]
    return None


__all__ = ["Cancelled", "SandboxUnavailable", "one_shot", "run_batch"]
