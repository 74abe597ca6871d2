"""The new-provider form: empty Prices (not `null`), an optional key said so, and a Test
connection that tries the typed values before saving, never sending a stored key to a new
address and never showing a key (issue 28)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.urls import reverse

from tests.support.factories import make_provider

pytestmark = pytest.mark.django_db
KEY = "sk-live-THIS-MUST-NEVER-LEAK-0123456789"
TRY = reverse("settings_provider_try", kwargs={"ws": "acme"})


def _typed(server_url: str, **extra) -> dict:
    return {"name": "Mine", "base_url": server_url, "default_model": "judge-model", **extra}


def test_a_new_provider_form_has_empty_prices_and_an_optional_key(web):
    html = web.get(reverse("settings_provider_new", kwargs={"ws": "acme"})).content.decode()
    prices = html.split('name="prices"', 1)[1].split("</textarea>", 1)[0]
    assert prices.rstrip().endswith(">") and "null" not in prices and "{}" not in prices
    assert "Optional: only for endpoints that need one." in html
    assert "Leave empty to keep the stored key" not in html
    assert 'id="provider-test"' in html and TRY in html


def test_an_edited_provider_keeps_the_keep_the_key_help(web, workspace, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server, api_key=KEY)
    url = reverse("settings_provider", kwargs={"ws": "acme", "provider_id": provider.public_id})
    assert "Leave empty to keep the stored key" in web.get(url).content.decode()


def test_test_connection_tries_the_typed_values_before_saving(web, llm_server):
    tried = web.post(TRY, _typed(llm_server.base_url, api_key=KEY)).content.decode()
    assert 'data-ok="1"' in tried and "1 model listed" in tried and KEY not in tried
    seen = llm_server.requests[-1]
    assert seen.path.endswith("/models") and KEY in str(seen.headers)


def test_a_refused_address_is_named_and_the_key_is_never_shown(web, settings):
    settings.ASSAY_OUTBOUND_ALLOW = "public"
    tried = web.post(TRY, _typed("http://127.0.0.1:9/v1", api_key=KEY)).content.decode()
    assert 'data-ok="0"' in tried and KEY not in tried


def test_an_error_body_is_scrubbed_of_the_key(web):
    with _server(models_status=401, echo_key=True) as url:
        tried = web.post(TRY, _typed(url, api_key=KEY)).content.decode()
    assert 'data-ok="0"' in tried and "HTTP 401" in tried and KEY not in tried


def test_without_a_models_list_a_one_token_chat_is_tried(web):
    with _server(models_status=404) as url:
        tried = web.post(TRY, _typed(url, api_key=KEY)).content.decode()
        chat = _Handler.seen[-1]
    assert 'data-ok="1"' in tried
    assert chat["path"].endswith("/chat/completions") and chat["body"]["max_tokens"] == 1
    assert chat["body"]["model"] == "judge-model"


def test_a_stored_key_is_not_sent_to_a_new_address(web, workspace, llm_server):
    provider = make_provider(workspace=workspace, server=llm_server, api_key=KEY)
    url = reverse(
        "settings_provider_test", kwargs={"ws": "acme", "provider_id": provider.public_id}
    )
    web.post(url, _typed(llm_server.base_url))  # the stored address: the stored key
    assert KEY in str(llm_server.requests[-1].headers)
    with _server(models_status=200) as other:
        web.post(url, _typed(other))
        assert KEY not in json.dumps(_Handler.seen[-1]["headers"])


def test_outsiders_and_editors_cannot_try(client, outsider, member, llm_server):
    client.force_login(outsider)
    assert client.post(TRY, _typed(llm_server.base_url, api_key=KEY)).status_code == 404
    client.force_login(member("ed", role="editor"))
    assert client.post(TRY, _typed(llm_server.base_url, api_key=KEY)).status_code == 403
    assert not llm_server.requests


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict] = []
    models_status = 200
    echo_key = False

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._record(None)
        text = self.headers.get("Authorization", "") if self.echo_key else ""
        self._send(self.models_status, {"data": [{"id": "m1"}], "error": text})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("Content-Length", 0))
        self._record(json.loads(self.rfile.read(length) or b"{}"))
        self._send(200, {"choices": [{"message": {"content": "p"}}]})

    def _record(self, body) -> None:
        self.seen.append({"path": self.path, "headers": dict(self.headers), "body": body})

    def _send(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _server:  # noqa: N801 - used as a context manager like a function
    """A local OpenAI-like endpoint whose /models answers `models_status`."""

    def __init__(self, *, models_status: int, echo_key: bool = False) -> None:
        _Handler.seen, _Handler.models_status, _Handler.echo_key = [], models_status, echo_key
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)

    def __enter__(self) -> str:
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
