"""JavaScript language layer: quickjs-ng, a fresh context per turn, no host callables.

Runs only inside a sandbox child. Each turn gets a new context with its own heap limit, time
limit and stack limit, so prototype pollution or globals cannot leak from one turn to the next.
The harness captures JSON and console before user code runs and returns a JSON string.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import _quickjs  # the C module directly: the `quickjs` wrapper starts a thread at import

from sandbox.limits import (
    MAX_ERROR_CHARS,
    MAX_REASON_BYTES,
    MAX_SOURCE_CHARS,
    MAX_STDOUT_CHARS,
    TRUNCATION_MARKER,
)
from sandbox.outcome import cap_text

STACK_BYTES = 1024 * 1024
_LOCATION_RE = re.compile(r"<input>:(\d+)")

PRELUDE = """
(function (g) {
  "use strict";
  const stringify = JSON.stringify, parse = JSON.parse, finite = Number.isFinite;
  const MAX_OUT = %(max_out)d, MAX_REASON = %(max_reason)d;
  let out = "", truncated = false, state = null;
  function show(v) {
    if (typeof v === "string") return v;
    try { const s = stringify(v); return s === undefined ? String(v) : s; }
    catch (e) { return String(v); }
  }
  function write(args) {
    if (truncated) return;
    let line = "";
    for (let i = 0; i < args.length; i++) line += (i ? " " : "") + show(args[i]);
    line += "\\n";
    if (out.length + line.length > MAX_OUT) {
      out += line.slice(0, MAX_OUT - out.length);
      truncated = true;
    } else out += line;
  }
  const log = function () { write(arguments); };
  g.console = { log: log, info: log, warn: log, error: log, debug: log };
  g.EvalOutput = function EvalOutput(score, reason) { return { score: score, reason: reason }; };
  function where(e) {
    const m = /<input>:(\\d+)/.exec(e !== null && typeof e === "object" &&
                                    typeof e.stack === "string" ? e.stack : "");
    return m ? Number(m[1]) : null;
  }
  function describe(e) {
    if (e instanceof Error) return String(e.name) + ": " + String(e.message);
    return "Uncaught " + show(e);
  }
  function fail(e) { state = { error: describe(e), line: where(e) }; }
  function refuse(message) { state = { error: message, line: null }; }
  function finish(r) {
    let score, reason = "";
    if (typeof r === "boolean") score = r ? 1 : 0;
    else if (typeof r === "number") score = r;
    else if (r !== null && typeof r === "object") {
      if (!("score" in r)) return refuse("the returned object has no 'score'");
      score = r.score;
      reason = r.reason === undefined || r.reason === null ? "" : r.reason;
    } else {
      const kind = r === null ? "null" : typeof r;
      return refuse("exec_evaluation must return EvalOutput(score, reason), an object with " +
                    "score and reason, a number or a bool; got " + kind);
    }
    if (typeof score === "number" && !finite(score))
      return refuse("score must be a finite number, got " + String(score));
    if (score !== null && typeof score !== "number")
      return refuse("score must be a number in [0, 1] or null, got " + typeof score);
    if (typeof reason !== "string")
      return refuse("reason must be a string, got " + typeof reason);
    if (reason.length > MAX_REASON) return refuse("reason is longer than 16 KB");
    state = { score: score, reason: reason };
  }
  function entry() {
    if (typeof exec_evaluation === "function") return exec_evaluation;
    if (typeof execEvaluation === "function") return execEvaluation;
    return null;
  }
  return function harness(command, turnJson) {
    if (command === "defined") return entry() !== null;
    if (command === "collect") return stringify({ state: state, out: out, cut: truncated });
    const fn = entry();
    if (fn === null) return refuse("exec_evaluation(turn) is not defined");
    let r;
    try { r = fn(parse(turnJson)); } catch (e) { return fail(e); }
    if (r !== null && typeof r === "object" && typeof r.then === "function") {
      try { r.then(finish, fail); } catch (e) { fail(e); }
    } else finish(r);
  };
})(globalThis)
""" % {"max_out": MAX_STDOUT_CHARS, "max_reason": MAX_REASON_BYTES}  # noqa: UP031 - JS braces


class TurnTimeout(Exception):
    """The turn used up its time budget (engine interrupt or an endless job queue)."""


def error_line(message: str) -> int | None:
    """The first source line a QuickJS error message points at."""
    match = _LOCATION_RE.search(message)
    return int(match.group(1)) if match else None


_MEMORY_ERRORS = ("InternalError: out of memory", "InternalError: string too long")
_NULL_ERRORS = ("null", "Uncaught null")


def classify(message: str, heap_full: bool = False) -> str:
    """Map a QuickJS error to a status: timeout, memory or error.

    When the heap is exhausted QuickJS may not even allocate the error object and throws null;
    a null is counted as `memory` only if the heap is in fact nearly full.
    """
    first = message.strip().split("\n", 1)[0]
    if first == "InternalError: interrupted":
        return "timeout"
    if first in _MEMORY_ERRORS or (first in _NULL_ERRORS and heap_full):
        return "memory"
    return "error"


def format_error(message: str, line: int | None) -> str:
    """'line N: Type: message' (the stack trace is dropped: it names harness frames too)."""
    first = message.strip().split("\n", 1)[0] or "JavaScript error"
    return cap_text(f"line {line}: {first}" if line else first, MAX_ERROR_CHARS)


class JsEvaluator:
    """One JavaScript evaluator; every `run` builds a brand-new QuickJS context."""

    def __init__(self, source: str, timeout_s: float, memory_mb: int) -> None:
        self.source = source
        self.timeout_s = timeout_s
        self.memory_bytes = memory_mb * 1024 * 1024

    def _context(self) -> tuple[Any, Any]:
        ctx = _quickjs.Context()
        ctx.set_memory_limit(self.memory_bytes)
        ctx.set_max_stack_size(STACK_BYTES)
        ctx.set_time_limit(self.timeout_s)
        return ctx, ctx.eval(PRELUDE)

    def check(self) -> list[dict[str, Any]]:
        """Syntax errors and top-level failures, and whether exec_evaluation is defined."""
        if not isinstance(self.source, str) or not self.source.strip():
            return [{"line": None, "message": "source is empty"}]
        if len(self.source) > MAX_SOURCE_CHARS:
            return [{"line": None, "message": f"source exceeds {MAX_SOURCE_CHARS} characters"}]
        ctx, harness = self._context()
        try:
            ctx.eval(self.source)
        except _quickjs.JSException as exc:
            message = str(exc)
            if classify(message) == "timeout":
                message = "top-level code did not finish within the time limit"
            return [{"line": error_line(message), "message": message.strip().split("\n")[0]}]
        if not harness("defined"):
            return [{"line": None, "message": "exec_evaluation(turn) is not defined"}]
        return []

    def run(self, turn_json: str) -> tuple[str, Any, Any, str, str]:
        """Run one turn: (status, score, reason, stdout, error)."""
        started = time.monotonic()
        ctx, harness = self._context()
        try:
            self._drive(ctx, harness, turn_json, started)
        except TurnTimeout:
            return "timeout", None, "", _stdout(harness), "time limit exceeded"
        except _quickjs.JSException as exc:
            message = str(exc)
            status = classify(message, self._heap_full(ctx))
            return status, None, "", _stdout(harness), format_error(message, error_line(message))
        return self._collect(ctx, harness)

    def _heap_full(self, ctx: Any) -> bool:
        try:
            return ctx.memory()["malloc_size"] > self.memory_bytes // 2
        except Exception:  # a context this broken has certainly run out of memory
            return True

    def _collect(self, ctx: Any, harness: Any) -> tuple[str, Any, Any, str, str]:
        data = json.loads(harness("collect"))
        stdout = data["out"] + (TRUNCATION_MARKER if data["cut"] else "")
        state = data["state"]
        if state is None:
            return "error", None, "", stdout, "the returned promise never settled"
        if "error" in state:
            status = classify(state["error"], self._heap_full(ctx))
            return status, None, "", stdout, format_error(state["error"], state["line"])
        return "ok", state["score"], state["reason"], stdout, ""

    def _drive(self, ctx: Any, harness: Any, turn_json: str, started: float) -> None:
        ctx.eval(self.source)
        self._budget(ctx, started)
        harness("start", turn_json)
        while ctx.execute_pending_job():
            self._budget(ctx, started)

    def _budget(self, ctx: Any, started: float) -> None:
        # The engine's limit restarts with every eval or job, so the turn's remaining time is
        # handed down each step; an endless chain of short jobs ends here.
        remaining = self.timeout_s - (time.monotonic() - started)
        if remaining <= 0:
            raise TurnTimeout
        ctx.set_time_limit(remaining)


def _stdout(harness: Any) -> str:
    try:
        data = json.loads(harness("collect"))
    except Exception:  # the context may be unusable after an out-of-memory
        return ""
    return data["out"] + (TRUNCATION_MARKER if data["cut"] else "")
