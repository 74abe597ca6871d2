"""ASSAY_URL pointing at something that is not Assay (a sign-in proxy that redirects, an
http → https redirect, a web page): the CLI says so in one line and exits 2, never crashes
with a traceback, and never follows a redirect with the token."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from assay_client import Client
from assay_client.cli import main
from assay_client.errors import AssayError
from click.testing import CliRunner

from tests.support.background import BackgroundServer


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        self.server.seen.append((self.path, self.headers.get("Authorization")))
        if self.path.startswith("/login"):
            self._answer(200, b"<html>sign in</html>", "text/html")
        elif self.server.mode == "redirect":
            self.send_response(302)
            self.send_header("Location", "/login/?next=" + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._answer(200, b"<!doctype html><title>Welcome</title>", "text/html")

    do_POST = do_GET  # noqa: N815

    def _answer(self, status: int, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class NotAssay(BackgroundServer):
    """A web server that is not Assay: it redirects every path to its sign-in page
    (`redirect`), or answers every path with an HTML page (`html`)."""

    def __init__(self, mode: str):
        self.mode = mode

    def _make_server(self, port: int):
        server = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        server.mode, server.seen = self.mode, []
        return server

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def seen(self) -> list:
        return self._server.seen


@pytest.fixture(params=["redirect", "html"])
def not_assay(request, clean_env, monkeypatch):
    with NotAssay(request.param) as server:
        monkeypatch.setenv("ASSAY_URL", server.url)
        monkeypatch.setenv("ASSAY_TOKEN", "secret-token-1")
        yield server


def test_the_cli_names_the_problem_instead_of_crashing(not_assay):
    result = CliRunner().invoke(main, ["experiments", "list"], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "NoneType" not in result.output
    assert "not an Assay API answer" in result.stderr
    assert f"check that ASSAY_URL ({not_assay.url}) is the address of Assay" in result.stderr
    if not_assay.mode == "redirect":
        assert "redirected to /login/?next=/api/v1/" in result.stderr
        assert "HTTP 302" in result.stderr
    else:
        assert "answered with something that is not JSON" in result.stderr


def test_a_redirect_is_not_followed_with_the_token(not_assay):
    with Client() as client, pytest.raises(AssayError) as raised:
        list(client.experiments())
    assert raised.value.code == "not_assay"
    paths = [path for path, _ in not_assay.seen]
    assert all(path.startswith("/api/v1/") for path in paths), paths
    assert not any(path.startswith("/login") for path in paths)
