"""A local OpenAI-compatible embeddings server: `POST /v1/embeddings` answers scripted vectors.

`vectors` maps a text to its vector; any other text gets a fixed vector derived from its
SHA-256. Every request's inputs are recorded (`inputs`, one list a request) so tests can count
what was asked. `fail_with` (an HTTP status) makes every request fail.
"""

from __future__ import annotations

import hashlib
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.background import BackgroundServer


def hashed_vector(text: str, size: int = 8) -> list[float]:
    """A deterministic vector for any text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return [b / 255 - 0.5 for b in digest[:size]]


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - stdlib signature
        pass

    def do_POST(self):  # noqa: N802 - stdlib naming
        owner = self.server.owner
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        owner.inputs.append(list(body["input"]))
        owner.headers.append(dict(self.headers))
        if self.path != "/v1/embeddings" or owner.fail_with:
            self._send(owner.fail_with or 404, {"error": {"message": "no such route"}})
            return
        data = [
            {"object": "embedding", "index": i, "embedding": owner.vector(text)}
            for i, text in enumerate(body["input"])
        ]
        self._send(200, {"object": "list", "data": data, "model": body["model"]})

    def _send(self, status: int, payload: dict) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


class EmbeddingsServer(BackgroundServer):
    def __init__(self, vectors: dict[str, list[float]] | None = None, fail_with: int = 0):
        self.vectors = dict(vectors or {})
        self.fail_with = fail_with
        self.inputs: list[list[str]] = []
        self.headers: list[dict] = []

    def vector(self, text: str) -> list[float]:
        return self.vectors.get(text) or hashed_vector(text)

    def _make_server(self, port: int):
        server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        server.owner = self
        return server

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"
