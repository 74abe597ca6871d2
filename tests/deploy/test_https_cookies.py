"""Secure cookies only behind HTTPS: plain HTTP on a LAN address signs in by default, HTTPS
(ASSAY_HTTPS=1, a secure request, or a trusted X-Forwarded-Proto) gets Secure cookies."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import override_settings
from django.urls import reverse

from tests.conftest import PASSWORD

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import django, json; from django.conf import settings; django.setup();"
    "print(json.dumps({'session': settings.SESSION_COOKIE_SECURE,"
    "'csrf': settings.CSRF_COOKIE_SECURE,"
    "'proxy': getattr(settings, 'SECURE_PROXY_SSL_HEADER', None)}))"
)
CLEARED = {"SECRET_KEY", "ASSAY_ENV", "DEBUG", "DATABASE_URL", "REDIS_URL", "ASSAY_HTTPS"}


def production_settings(tmp_path, **env) -> dict:
    base = {k: v for k, v in os.environ.items() if k not in CLEARED}
    base.update(
        DJANGO_SETTINGS_MODULE="assay.settings",
        ASSAY_DATA_DIR=str(tmp_path),
        ASSAY_ENV="production",
        SECRET_KEY="k" * 60,
        **env,
    )
    result = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=base, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_production_over_plain_http_has_no_secure_cookies(tmp_path):
    assert production_settings(tmp_path) == {"session": False, "csrf": False, "proxy": None}


def test_assay_https_makes_the_cookies_secure(tmp_path):
    values = production_settings(tmp_path, ASSAY_HTTPS="1")
    assert values["session"] is True and values["csrf"] is True


def test_trusted_forwarded_proto_is_the_proxy_header(tmp_path):
    values = production_settings(tmp_path, ASSAY_TRUST_FORWARDED_PROTO="1")
    assert values["proxy"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert values["session"] is False


def test_a_bad_assay_https_names_the_variable(tmp_path):
    with pytest.raises(AssertionError, match="ASSAY_HTTPS must be a boolean"):
        production_settings(tmp_path, ASSAY_HTTPS="sometimes")


def signed_in_cookies(client, **extra):
    client.get(reverse("login"), **extra)
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD}, **extra)
    assert response.status_code == 302, "signed in"
    return response.cookies


@pytest.mark.django_db
@override_settings(SESSION_COOKIE_SECURE=False, CSRF_COOKIE_SECURE=False)
def test_plain_http_on_a_lan_address_signs_in_with_plain_cookies(client, user, settings):
    settings.ALLOWED_HOSTS = ["*"]
    cookies = signed_in_cookies(client, HTTP_HOST="192.168.1.20:8000")
    assert cookies["sessionid"]["secure"] == ""
    page = client.get("/", HTTP_HOST="192.168.1.20:8000", follow=True)
    assert b"alice" in page.content


@pytest.mark.django_db
@override_settings(SESSION_COOKIE_SECURE=False, CSRF_COOKIE_SECURE=False)
def test_a_secure_request_gets_secure_cookies(client, user):
    cookies = signed_in_cookies(client, secure=True)
    assert cookies["sessionid"]["secure"] is True
    client.cookies.clear()
    assert client.get(reverse("login"), secure=True).cookies["csrftoken"]["secure"] is True


@pytest.mark.django_db
@override_settings(
    SESSION_COOKIE_SECURE=False,
    CSRF_COOKIE_SECURE=False,
    SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"),
)
def test_a_trusted_forwarded_https_gets_secure_cookies(client, user):
    cookies = signed_in_cookies(client, HTTP_X_FORWARDED_PROTO="https")
    assert cookies["sessionid"]["secure"] is True


@pytest.mark.django_db
@override_settings(SESSION_COOKIE_SECURE=False, CSRF_COOKIE_SECURE=False)
def test_an_untrusted_forwarded_header_changes_nothing(client, user):
    cookies = signed_in_cookies(client, HTTP_X_FORWARDED_PROTO="https")
    assert cookies["sessionid"]["secure"] == ""
