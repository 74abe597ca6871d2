"""A local webhook receiver: answers each request with the next scripted status (the last one
repeats) and keeps what it was sent."""

from __future__ import annotations

import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.background import BackgroundServer

ENDLESS = 256 * 1024 * 1024


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


class Receiver(BackgroundServer):
    """`script`: statuses in order (an int), "hang:<s>" (answer 200 after s seconds) or
    "endless" (200 and a body of up to ENDLESS bytes, written until the client hangs up;
    `written` counts what went out)."""

    def __init__(self, *script: int | str, answer: bytes = b"ok") -> None:
        self.script = list(script or [200])
        self.answer = answer
        self.received: list[Received] = []
        self.written = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def next_step(self) -> int | str:
        return self.script.pop(0) if len(self.script) > 1 else self.script[0]

    def _make_server(self, port: int):
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                receiver.received.append(Received(dict(self.headers.items()), body))
                step = receiver.next_step()
                if step == "endless":
                    return self.endless()
                if isinstance(step, str) and step.startswith("hang:"):
                    time.sleep(float(step.split(":")[1]))
                    step = 200
                self.send_response(step)
                self.send_header("content-length", str(len(receiver.answer)))
                self.end_headers()
                self.wfile.write(receiver.answer)

            def endless(self):
                self.send_response(200)
                self.end_headers()
                chunk = b"x" * 65536
                try:
                    while receiver.written < ENDLESS:
                        self.wfile.write(chunk)
                        receiver.written += len(chunk)
                except OSError:  # the client hung up
                    pass

            def log_message(self, *args):
                pass

        return ThreadingHTTPServer(("127.0.0.1", port), Handler)
