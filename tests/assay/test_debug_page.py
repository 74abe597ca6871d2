"""In development (DEBUG on) a 500 is the plain error page: Django's traceback page lists the
request's environment and the settings, and is shown only when ASSAY_DEBUG_TRACEBACKS asks for
it (and then only to local addresses, tests/assay/test_security_headers.py)."""

import os
import subprocess
import sys

import pytest
from django.test import override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db

ENVIRONMENT_MARKS = (b"Traceback", b"Request information", b"META", b"REMOTE_ADDR", b"SECRET_KEY")


@pytest.fixture
def failing_page(client, user, workspace, monkeypatch):
    from assay import selectors

    def boom(**kwargs):
        raise RuntimeError("boom in a view")

    monkeypatch.setattr(selectors, "providers_list", boom)
    client.force_login(user)
    client.raise_request_exception = False
    return reverse("settings_providers", kwargs={"ws": "acme"})


@override_settings(DEBUG=True, ASSAY_DEBUG_TRACEBACKS=False)
def test_a_local_500_in_development_is_the_plain_page(client, failing_page):
    response = client.get(failing_page)
    assert response.status_code == 500
    for mark in (*ENVIRONMENT_MARKS, b"boom in a view"):
        assert mark not in response.content, mark


@override_settings(DEBUG=True, ASSAY_DEBUG_TRACEBACKS=False)
def test_an_api_500_in_development_is_the_json_error(api, monkeypatch):
    from assay import selectors

    def boom(**kwargs):
        raise RuntimeError("boom in a view")

    monkeypatch.setattr(selectors, "providers_list", boom)
    api.raise_request_exception = False
    response = api.get("/api/v1/providers/")
    assert response.status_code == 500
    assert response.json()["error"]["code"] == "server_error"
    assert b"boom in a view" not in response.content


def _tracebacks(tmp_path, **env) -> bool:
    from tests.assay.test_settings_env import ROOT

    base = {k: v for k, v in os.environ.items() if k not in {"ASSAY_ENV", "DEBUG", "SECRET_KEY"}}
    base.update({"DJANGO_SETTINGS_MODULE": "assay.settings", "ASSAY_DATA_DIR": str(tmp_path)})
    probe = "from django.conf import settings; print(settings.ASSAY_DEBUG_TRACEBACKS)"
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup(); " + probe],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() == "True"


def test_the_setting_is_off_unless_asked_and_never_without_debug(tmp_path):
    assert not _tracebacks(tmp_path)
    assert _tracebacks(tmp_path, ASSAY_DEBUG_TRACEBACKS="1")
    production = {"ASSAY_ENV": "production", "SECRET_KEY": "k" * 50}
    assert not _tracebacks(tmp_path, ASSAY_DEBUG_TRACEBACKS="1", **production)
