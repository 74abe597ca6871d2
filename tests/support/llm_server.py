"""A local OpenAI-compatible HTTP server with scripted answers, for tests and benchmarks.

Serves ``POST /v1/chat/completions`` and ``GET /v1/models`` on 127.0.0.1 (ephemeral port).
Which answer a request gets is chosen by, in order:

1. a marker in the last user message: ``[[script:NAME]]`` or a sequence ``[[script:A,B,C]]``;
   a sequence advances each time the *same* request is sent again (a retry) and then repeats
   its last step, so ``[[script:429,clean]]`` is "rate limited once, then a clean answer";
2. the queue filled with ``server.enqueue(...)`` (consumed in arrival order);
3. ``default_script`` (``clean``).

Answer scripts (content; sent as ``tool_calls`` arguments when the request has tools):
``clean``, ``score:<x>`` (clean with that score), ``fenced``, ``prose``, ``bad_json``,
``repairable``, ``out_of_range``, ``score_string``, ``nan``, ``missing_score``,
``bool_score``, ``pattern``, ``empty``, ``tool_text`` (content even when tools are requested);
a pairwise judge's ``verdict:<A|B|tie|anything>`` (``{"reason", "verdict"}``) and
``verdict_prose:<x>`` (the verdict in a sentence, no JSON); ``raw:<text>`` answers the text
as it is (an answer a test writes whole, given through ``enqueue``). A marker inside a judged
output moves with it: in a pairwise prompt the output shown first supplies the marker.
A simulated user's ``say:<first>|<second>|…``: the n-th message of a chat, where n - 1 is the
number of assistant messages in the request (the simulator's own earlier messages; the last
one repeats), e.g. ``say:hi|thanks <END>`` — give it as ``default_script``: a simulator's last
user message is the app's reply, which carries no marker.
Transport scripts: ``429[:seconds|:date:seconds|:none]``, ``500``, ``503``, ``400``,
``slow:<seconds>`` (clean after a delay), ``hang:<seconds>`` (for client timeouts),
``drip:<seconds>`` (a byte every 0.25 s, then a clean answer: a whole-attempt bound), ``drop``
(close the connection without answering), ``echo_key[:masked]`` (401 whose message repeats the
bearer key, whole or masked as some providers do), ``huge:<MB>`` (a clean-looking answer of that
many megabytes of incompressible text).

Run standalone (benchmarks): ``python -m tests.support.llm_server --latency 0.2``.
"""

from __future__ import annotations

import argparse
import email.utils
import hashlib
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.background import BackgroundServer

MODEL_ID = "judge-model"
_MARKER_RE = re.compile(r"\[\[script:([^\]]+)\]\]")
_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found"}
_REASONS |= {429: "Too Many Requests"}
_REASONS |= {500: "Internal Server Error", 503: "Service Unavailable"}

CLEAN = '{"reason": "The answer matches the reference.", "score": 0.8}'
ANSWERS: dict[str, str] = {
    "clean": CLEAN,
    "fenced": f"```json\n{CLEAN}\n```",
    "prose": f"Here is my evaluation of the answer.\n{CLEAN}\nLet me know if you need more.",
    "bad_json": '{"reason": "I could not decide because the answer was cut',
    "repairable": "{'reason': 'single quotes and a trailing comma', 'score': 0.6,}",
    "out_of_range": '{"reason": "Very good.", "score": 1.7}',
    "score_string": '{"reason": "Mostly right.", "score": "0.7"}',
    "nan": '{"reason": "Unsure.", "score": NaN}',
    "missing_score": '{"reason": "I forgot the score."}',
    "bool_score": '{"reason": "Yes.", "score": true}',
    "pattern": "The answer is partly correct.\nScore: 0.45\nIt misses the second point.",
    "empty": "",
}


@dataclass
class RecordedRequest:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any
    received_at: float  # time.time() on arrival
    script: str = ""


@dataclass
class _State:
    """Shared, lock-protected server state."""

    latency_s: float = 0.0
    default_script: str = "clean"
    requests: list[RecordedRequest] = field(default_factory=list)
    queue: deque[str] = field(default_factory=deque)
    sequence_steps: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    record: bool = True
    in_flight: int = 0
    max_in_flight: int = 0
    # seconds spent at each number of chat requests in flight (0 only between the first
    # request and the last answer), for benchmarks that check a provider is kept busy
    time_at: dict[int, float] = field(default_factory=dict)
    changed_at: float | None = None
    # wall-clock times of the first request and the last answer since the last reset, so a
    # benchmark can place the calls within a run's own timestamps
    first_at: float | None = None
    last_at: float | None = None

    def in_flight_changed(self, by: int) -> None:
        """Account the time at the old level, then move to the new one (lock held)."""
        now = time.monotonic()
        self.last_at = time.time()
        if self.first_at is None:
            self.first_at = self.last_at
        if self.changed_at is not None:
            spent = now - self.changed_at
            self.time_at[self.in_flight] = self.time_at.get(self.in_flight, 0.0) + spent
        self.changed_at = now
        self.in_flight += by
        self.max_in_flight = max(self.max_in_flight, self.in_flight)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, like real providers
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Without this, Nagle's algorithm delays small answers by up to 40 ms (delayed ACKs).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silence the per-request log lines."""

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._record(None)
        if self.path.rstrip("/") == "/v1/models":
            models = {"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]}
            self._send_json(200, models)
        elif self.path.startswith("/_stats"):  # benchmarks: how busy the server was
            self._send_json(200, self.server.stats(reset="reset" in self.path))
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        body = self._read_json()
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._record(body)
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        script = self.server.choose_script(body)
        self._record(body, script)
        state = self.server.state
        with state.lock:
            state.in_flight_changed(1)
        self.in_flight = True
        try:
            if state.latency_s:
                time.sleep(state.latency_s)
            _act(self, script, body)
        finally:
            self.answered()

    def answered(self) -> None:
        """Out of the in-flight count, once, before the answer's bytes leave: a client that
        has its answer may send the next request at once, and that one must not meet this
        one still counted (a fast client made the peak read one over the limit)."""
        if getattr(self, "in_flight", False):
            self.in_flight = False
            with self.server.state.lock:
                self.server.state.in_flight_changed(-1)

    def _read_json(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return json.loads(raw or b"null")
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _record(self, body: Any, script: str = "") -> None:
        state = self.server.state
        if not state.record:
            return
        headers = {key.lower(): value for key, value in self.headers.items()}
        entry = RecordedRequest(self.command, self.path, headers, body, time.time(), script)
        with state.lock:
            state.requests.append(entry)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        """Write status line, headers and body in one send (no small-packet stalls)."""
        data = json.dumps(payload).encode("utf-8")
        lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Status')}"]
        lines += ["Content-Type: application/json", f"Content-Length: {len(data)}"]
        lines += [f"{key}: {value}" for key, value in (headers or {}).items()]
        self.answered()
        self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data)

    def drop(self) -> None:
        """Close the connection without answering (a dropped connection)."""
        self.answered()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _act(handler: _Handler, script: str, body: Any) -> None:
    """Answer a chat completion request according to ``script``."""
    name, _, arg = script.partition(":")
    action = _TRANSPORT.get(name)
    if action is not None:
        action(handler, arg, body)
        return
    _answer(handler, body, _content_for(name, arg, body), allow_tool=name != "tool_text")


def _content_for(name: str, arg: str, body: Any = None) -> str:
    if name == "say":
        return _say(arg, body)
    if name == "score":
        return json.dumps({"reason": f"Scored {arg}.", "score": float(arg)})
    if name == "tool_text":
        return CLEAN
    if name == "raw":
        return arg
    if name == "verdict":
        return json.dumps({"reason": f"Answer {arg} is better.", "verdict": arg})
    if name == "verdict_prose":
        return f"Both answers try, but on balance my verdict: {arg}. The other misses the point."
    if name not in ANSWERS:
        return json.dumps({"reason": f"unknown script {name!r}", "score": 0.5})
    return ANSWERS[name]


def _say(arg: str, body: Any) -> str:
    """A simulated user's next message: the step after the messages it already wrote."""
    steps = arg.split("|")
    messages = body.get("messages") if isinstance(body, dict) else None
    written = sum(1 for m in messages or [] if m.get("role") == "assistant")
    return steps[min(written, len(steps) - 1)]


def _answer(handler: _Handler, body: Any, content: str, *, allow_tool: bool = True) -> None:
    """A 200 chat completion; tool requests get the content as ``eval`` call arguments."""
    handler._send_json(200, _completion(body, content, allow_tool=allow_tool))


def _completion(body: Any, content: str, *, allow_tool: bool = True) -> dict[str, Any]:
    request = body if isinstance(body, dict) else {}
    use_tool = allow_tool and bool(request.get("tools"))
    message: dict[str, Any] = {"role": "assistant", "content": None if use_tool else content}
    if use_tool:
        function = {"name": "eval", "arguments": content}
        message["tool_calls"] = [{"id": "call_1", "type": "function", "function": function}]
    prompt_tokens = len(json.dumps(request.get("messages", ""))) // 4
    completion = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", MODEL_ID),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish(use_tool)}],
        "usage": _usage(prompt_tokens, max(1, len(content) // 4)),
    }
    return completion


def _finish(use_tool: bool) -> str:
    return "tool_calls" if use_tool else "stop"


def _usage(prompt: int, completion: int) -> dict[str, int]:
    total = prompt + completion
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}


def _rate_limited(handler: _Handler, arg: str, body: Any) -> None:
    """429 with ``Retry-After`` in seconds (default 1), as an HTTP date, or absent."""
    headers: dict[str, str] = {}
    if arg.startswith("date:"):
        moment = time.time() + float(arg.split(":", 1)[1])
        headers["Retry-After"] = email.utils.formatdate(moment, usegmt=True)
    elif arg != "none":
        headers["Retry-After"] = arg or "1"
    error = {"message": "Rate limit reached for requests", "type": "requests", "code": "429"}
    handler._send_json(429, {"error": error}, headers)


def _status(code: int) -> Callable[[_Handler, str, Any], None]:
    def send(handler: _Handler, arg: str, body: Any) -> None:
        error = {"message": f"scripted failure {code}", "type": "server_error"}
        handler._send_json(code, {"error": error})

    return send


def _slow(handler: _Handler, arg: str, body: Any) -> None:
    time.sleep(float(arg or 1))
    _answer(handler, body, CLEAN)


def _drip(handler: _Handler, arg: str, body: Any) -> None:
    """Headers at once, then a space every 0.25 s for `arg` seconds, then a clean answer: every
    read is quick, only a bound on the whole attempt stops it."""
    data = json.dumps(_completion(body, CLEAN)).encode()
    try:
        handler.wfile.write(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        for _ in range(int(float(arg or 4) / 0.25)):
            handler.wfile.write(b"1\r\n \r\n")
            time.sleep(0.25)
        handler.answered()
        handler.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data))
    except (BrokenPipeError, ConnectionResetError):
        handler.close_connection = True


def _drop(handler: _Handler, arg: str, body: Any) -> None:
    handler.drop()


def _echo_key(handler: _Handler, arg: str, body: Any) -> None:
    """401 that repeats the presented key, as careless providers do."""
    key = handler.headers.get("Authorization", "").removeprefix("Bearer ")
    shown = f"{key[:8]}{'*' * 20}{key[-4:]}" if arg == "masked" else key
    error = {"message": f"Incorrect API key provided: {shown}.", "type": "invalid_request_error"}
    handler._send_json(401, {"error": error})


def _huge(handler: _Handler, arg: str, body: Any) -> None:
    """An answer of `arg` MB: hex of a hash chain, so compression cannot hide its size."""
    size = int(float(arg or 1) * 1024 * 1024)
    block, chunks = hashlib.sha256(b"huge").hexdigest(), []
    for _ in range(size // len(block) + 1):
        block = hashlib.sha256(block.encode()).hexdigest()
        chunks.append(block)
    _answer(handler, body, "".join(chunks)[:size])


_TRANSPORT: dict[str, Callable[[_Handler, str, Any], None]] = {
    "429": _rate_limited,
    "500": _status(500),
    "503": _status(503),
    "400": _status(400),
    "slow": _slow,
    "hang": _slow,
    "drop": _drop,
    "drip": _drip,
    "echo_key": _echo_key,
    "huge": _huge,
}


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # hung scripts must not block shutdown
    request_queue_size = 1024  # the listen backlog: 64+ clients connect at once
    allow_reuse_address = True

    def __init__(self, state: _State, port: int = 0) -> None:
        self.state = state
        super().__init__(("127.0.0.1", port), _Handler)

    def stats(self, *, reset: bool = False) -> dict:
        """Chat requests in flight: the most at once and the seconds spent at each number
        (from the first request to the last answer); `reset` starts both again."""
        with self.state.lock:
            found = {
                "max_in_flight": self.state.max_in_flight,
                "time_at": {str(k): v for k, v in sorted(self.state.time_at.items())},
                "first_at": self.state.first_at,
                "last_at": self.state.last_at,
            }
            if reset:
                self.state.max_in_flight, self.state.time_at = 0, {}
                self.state.changed_at = self.state.first_at = self.state.last_at = None
        return found

    def choose_script(self, body: Any) -> str:
        """The script for this request: marker sequence, queue, or the default."""
        marker = _marker(body)
        with self.state.lock:
            if marker is not None:
                script = self._sequence_step(marker, body)
            elif self.state.queue:
                script = self.state.queue.popleft()
            else:
                script = self.state.default_script
        return script

    def _sequence_step(self, marker: str, body: Any) -> str:
        """The next step of a marker sequence for this exact request (retries advance it)."""
        steps = [step.strip() for step in marker.split(",") if step.strip()]
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        index = self.state.sequence_steps.get(key, 0)
        self.state.sequence_steps[key] = index + 1
        return steps[min(index, len(steps) - 1)]


def _marker(body: Any) -> str | None:
    """The script marker in the last user message, if any."""
    messages = body.get("messages") if isinstance(body, dict) else None
    for message in reversed(messages or []):
        if message.get("role") == "user":
            match = _MARKER_RE.search(_text(message.get("content")))
            return match.group(1) if match else None
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts = content or []
    return " ".join(p.get("text", "") for p in parts if isinstance(p, dict))


class ScriptedLlmServer(BackgroundServer):
    """The server as a context manager: ``with ScriptedLlmServer() as server: server.base_url``."""

    def __init__(
        self, *, latency_s: float = 0.0, default_script: str = "clean", record: bool = True
    ) -> None:
        self.state = _State(latency_s=latency_s, default_script=default_script, record=record)

    def _make_server(self, port: int) -> _Server:
        return _Server(self.state, port)

    @property
    def base_url(self) -> str:
        """The OpenAI base URL (``.../v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *scripts: str) -> None:
        """Scripts for the next requests without a marker, in arrival order."""
        with self.state.lock:
            self.state.queue.extend(scripts)

    def set_latency(self, seconds: float) -> None:
        """Delay every answer by ``seconds``."""
        self.state.latency_s = seconds

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every recorded request."""
        with self.state.lock:
            return list(self.state.requests)

    @property
    def max_in_flight(self) -> int:
        """The most chat requests the server handled at the same time."""
        with self.state.lock:
            return self.state.max_in_flight

    def chat_requests(self) -> list[RecordedRequest]:
        """Recorded chat completion requests."""
        return [r for r in self.requests if r.path.rstrip("/") == "/v1/chat/completions"]

    def reset(self) -> None:
        """Forget recorded requests, queued scripts and sequence positions."""
        with self.state.lock:
            self.state.requests.clear()
            self.state.queue.clear()
            self.state.sequence_steps.clear()
            self.state.max_in_flight = 0
            self.state.time_at.clear()
            self.state.changed_at = None


def main() -> None:
    """Serve until interrupted, printing the port on the first line (for benchmarks)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    args = parser.parse_args()
    server = ScriptedLlmServer(latency_s=args.latency, record=False).start()
    print(server.port, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
