"""A local "team application" over real HTTP, with scripted answers: the thing HTTP targets call.

`POST /answer` (any path works) takes JSON; the answer is chosen by the body's `script` value
(a comma-separated sequence advances each time the *same* body is sent again, i.e. on retries,
then repeats its last step):

- `ok` (default) — 200 `{"answer": <reply or "echo: <question>">, "trace": {"steps": [...]},
  "usage": {"input_tokens": 12, "output_tokens": 3, "cost": 0.0005}}`;
- `429[:seconds]` — rate limited with a Retry-After; `500`, `503`, `400`;
- `hang:<seconds>` — answer after that long (client timeouts);
- `bad_json` — a 200 whose body is not JSON; `no_answer` — JSON without `answer`;
- `text` — a plain-text 200 body; `echo_auth` — a 400 that repeats the Authorization header;
- `echo_headers` — a 200 whose answer and trace repeat every request header;
  `echo_headers_500` / `echo_headers_text` — a 500 / a non-JSON 200 that repeat them;
- `big:<bytes>` — a valid JSON 200 whose answer is that many `a`s (with Content-Length);
  `stream:<bytes>` — the same body sent chunked (no length), 64 KB a piece, made as it is
  sent (the app holds one piece, so a 200 MB answer costs the test process nothing);
  `endless` — a chunked JSON answer that never ends; `sent` records the bytes of each such body
  actually written before the client hung up;
- `drip:<seconds>` — a 200 whose headers come at once and whose body trickles a byte every
  0.25 s for that long (no read waits long) before the answer; `hung_up` counts the drips the
  client abandoned;
- `redirect:<status>` — that 3xx status with `Location: /elsewhere`;
- `echo_forms` — a 200 whose answer repeats the `X-Api-Key` header base64-encoded (after
  `user:`, as in a Basic credential; and URL-safe after one more byte) and masked
  (`app-to****cdef`), and whose trace repeats every header; `echo_masked` — a 400 naming the
  key masked.

`GET` answers like `ok` with the query string as the question (`GET /_stats` gives `calls` and
`max_in_flight`, for a benchmark running the app in its own process). Every request is recorded
(method, path, headers, body); `calls` counts them. `latency_s` delays every answer (benchmarks).
Run standalone: `python -m tests.support.app_server --latency 0.2` prints the port.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.background import BackgroundServer


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class _State:
    latency_s: float = 0.0
    record: bool = True
    requests: list[Seen] = field(default_factory=list)
    steps: dict[str, int] = field(default_factory=dict)
    calls: int = 0
    sent: list[int] = field(default_factory=list)
    hung_up: int = 0
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


def ok_answer(body: dict) -> dict:
    reply = body.get("reply") or f"echo: {body.get('question', '')}"
    steps = [{"type": "tool_call", "name": "search", "arguments": {"q": "x"}, "status": "ok"}]
    return {
        "answer": reply,
        "trace": {"steps": steps},
        "usage": {"input_tokens": 12, "output_tokens": 3, "cost": 0.0005},
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Without this, Nagle's algorithm delays small answers by up to 40 ms (delayed ACKs).
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if urlsplit(self.path).path == "/_stats":  # not counted: for a benchmark in another process
            state = self.server.state
            with state.lock:
                stats = {"calls": state.calls, "max_in_flight": state.max_in_flight}
            return self._send(200, stats)
        query = {k: v[-1] for k, v in parse_qs(urlsplit(self.path).query).items()}
        self._serve(query)

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        self._serve(body if isinstance(body, dict) else {"_body": body})

    do_PUT = do_PATCH = do_POST

    def _serve(self, body: dict) -> None:
        state = self.server.state
        with state.lock:
            state.calls += 1
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
            if state.record:
                state.requests.append(Seen(self.command, self.path, dict(self.headers), body))
        self.in_flight = True
        try:
            if state.latency_s:
                time.sleep(state.latency_s)
            self._act(self.server.step(body), body)
        finally:
            self.answered()

    def answered(self) -> None:
        """Out of the in-flight count, once, before the answer's last bytes leave: a client
        that has its answer may send the next request at once, and that one must not meet
        this one still counted (a fast client made the peak read one over the limit)."""
        if getattr(self, "in_flight", False):
            self.in_flight = False
            with self.server.state.lock:
                self.server.state.in_flight -= 1

    def _act(self, script: str, body: dict) -> None:
        name, _, arg = script.partition(":")
        if name == "429":
            self._send(429, {"error": "slow down"}, {"Retry-After": arg or "0"})
        elif name in ("500", "503", "400"):
            self._send(int(name), {"error": f"scripted {name}"})
        elif name == "hang":
            time.sleep(float(arg or 5))
            self._send(200, ok_answer(body))
        elif name == "bad_json":
            self._raw(200, b"<html>oops, not json</html>", "text/html")
        elif name == "no_answer":
            self._send(200, {"result": "missing the answer field"})
        elif name == "echo_auth":
            self._send(400, {"error": f"bad token {self.headers.get('Authorization')}"})
        elif name == "text":
            self._raw(200, (body.get("reply") or "plain text answer").encode(), "text/plain")
        elif name in ("echo_forms", "echo_masked"):
            self._echo_forms(name, self.headers.get("X-Api-Key", ""))
        elif name.startswith("echo_headers"):
            self._echo_headers(name)
        elif name == "big":
            self._send(200, {**ok_answer(body), "answer": "a" * int(arg)})
        elif name == "stream":
            self._stream(_long_answer(body, int(arg)))
        elif name == "endless":
            self._stream(_long_answer(body, None))
        elif name == "drip":
            self._drip(float(arg or 5), json.dumps(ok_answer(body)).encode())
        elif name == "redirect":
            self._raw(int(arg or 302), b"moved", "text/plain", {"Location": "/elsewhere"})
        else:
            self._send(200, ok_answer(body))

    def _echo_headers(self, name: str) -> None:
        seen = dict(self.headers)
        if name == "echo_headers_500":
            self._send(500, {"error": f"cannot serve {json.dumps(seen)}"})
        elif name == "echo_headers_text":
            self._raw(200, f"<html>you sent {seen}</html>".encode(), "text/html")
        else:
            self._send(200, {"answer": f"you sent {json.dumps(seen)}", "trace": {"headers": seen}})

    def _echo_forms(self, name: str, key: str) -> None:
        masked = f"{key[:6]}****{key[-4:]}"
        if name == "echo_masked":
            return self._send(400, {"error": f"invalid key {masked}"})
        basic = base64.b64encode(f"user:{key}".encode()).decode()
        url_safe = base64.urlsafe_b64encode(f"!{key}".encode()).decode()
        answer = f"Basic {basic} / {url_safe} / {masked}"
        self._send(200, {"answer": answer, "trace": {"headers": dict(self.headers)}})

    def _stream(self, pieces) -> None:
        """Chunked transfer encoding, a chunk a piece, counting what the client took."""
        written = 0
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in pieces:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                written += len(piece)
            self.answered()
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            with self.server.state.lock:
                self.server.state.sent.append(written)

    def _drip(self, seconds: float, data: bytes) -> None:
        """Headers at once, then a space every 0.25 s for `seconds`, then the answer; a write
        that fails means the client hung up (counted in `hung_up`)."""
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for _ in range(int(seconds / 0.25)):
                self.wfile.write(b"1\r\n \r\n")
                self.wfile.flush()
                time.sleep(0.25)
            self.answered()
            self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(data), data))
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            with self.server.state.lock:
                self.server.state.hung_up += 1

    def _send(self, status: int, payload: Any, headers: dict | None = None) -> None:
        self._raw(status, json.dumps(payload).encode(), "application/json", headers)

    def _raw(self, status: int, data: bytes, mime: str, headers: dict | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", mime)
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.answered()
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)


PIECE = 64 * 1024


def _long_answer(body: dict, size: int | None):
    """The pieces of `{"answer": "aaa…", …}` with `size` a's (None: never ending), made as
    they are sent."""
    head = json.dumps({**ok_answer(body), "answer": ""}).encode()
    cut = head.index(b'"answer": "') + len(b'"answer": "')
    yield head[:cut]
    left = size
    while left is None or left > 0:
        count = PIECE if left is None else min(PIECE, left)
        yield b"a" * count
        left = None if left is None else left - count
    yield head[cut:]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024
    allow_reuse_address = True

    def __init__(self, state: _State, port: int = 0) -> None:
        self.state = state
        super().__init__(("127.0.0.1", port), _Handler)

    def step(self, body: dict) -> str:
        steps = [s.strip() for s in str(body.get("script") or "ok").split(",") if s.strip()]
        key = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
        with self.state.lock:
            index = self.state.steps.get(key, 0)
            self.state.steps[key] = index + 1
        return steps[min(index, len(steps) - 1)]


class ScriptedApp(BackgroundServer):
    """`with ScriptedApp() as app: app.url` — the application under test."""

    def __init__(self, *, latency_s: float = 0.0, record: bool = True) -> None:
        self.state = _State(latency_s=latency_s, record=record)

    def _make_server(self, port: int) -> _Server:
        return _Server(self.state, port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/answer"

    @property
    def origin(self) -> str:
        """Where a secret for this app may be sent (a secret's allowed origin)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def calls(self) -> int:
        with self.state.lock:
            return self.state.calls

    @property
    def max_in_flight(self) -> int:
        with self.state.lock:
            return self.state.max_in_flight

    @property
    def sent(self) -> list[int]:
        with self.state.lock:
            return list(self.state.sent)

    @property
    def hung_up(self) -> int:
        with self.state.lock:
            return self.state.hung_up

    @property
    def requests(self) -> list[Seen]:
        with self.state.lock:
            return list(self.state.requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    app = ScriptedApp(latency_s=args.latency, record=False).start(args.port)
    print(app.port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        app.stop()


if __name__ == "__main__":
    main()
