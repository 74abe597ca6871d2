"""Providers through the API and pages; keys are encrypted and never shown or logged."""

import logging

import pytest
from django.urls import reverse

from assay import services
from assay.models import ModelProvider, Secret

pytestmark = pytest.mark.django_db

KEY = "sk-live-THIS-MUST-NEVER-LEAK-0123456789"


def test_api_create_keeps_key_write_only(api, workspace, caplog):
    caplog.set_level(logging.DEBUG)
    response = api.post(
        "/api/v1/providers/",
        {
            "name": "OpenAI",
            "base_url": "https://llm.test/v1",
            "default_model": "gpt-4o-mini",
            "api_key": KEY,
            "structured_mode": "json_schema",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["has_api_key"] is True and "api_key" not in body
    pid = body["id"]
    for url in ["/api/v1/providers/", f"/api/v1/providers/{pid}/", "/api/schema/"]:
        assert KEY not in api.get(url).content.decode()
    secret = Secret.objects.get()
    assert KEY not in secret.ciphertext and KEY not in repr(secret)
    assert services.secret_reveal(secret=secret) == KEY
    assert KEY not in caplog.text


def test_update_without_key_keeps_it_and_new_key_replaces(api, workspace):
    provider = services.provider_create(
        workspace=workspace, name="P", base_url="https://p.test/v1", default_model="m", api_key=KEY
    )
    response = api.patch(
        f"/api/v1/providers/{provider.public_id}/", {"timeout_s": 30}, format="json"
    )
    assert response.status_code == 200
    provider.refresh_from_db()
    assert services.secret_reveal(secret=provider.api_key) == KEY
    api.patch(
        f"/api/v1/providers/{provider.public_id}/",
        {"api_key": "sk-new-key-abcdefgh"},
        format="json",
    )
    provider.refresh_from_db()
    assert services.secret_reveal(secret=provider.api_key) == "sk-new-key-abcdefgh"
    assert Secret.objects.count() == 1


def test_bad_provider_input_names_the_field_and_saves_nothing(api, workspace):
    cases = [
        ({"name": "x", "base_url": "not a url", "default_model": "m"}, "base_url"),
        ({"name": "x", "base_url": "https://x.test/v1"}, "default_model"),
        (
            {"name": "x", "base_url": "https://x.test/v1", "default_model": "m", "timeout_s": -1},
            "timeout_s",
        ),
        (
            {
                "name": "x",
                "base_url": "https://x.test/v1",
                "default_model": "m",
                "structured_mode": "telepathy",
            },
            "structured_mode",
        ),
    ]
    for payload, field in cases:
        response = api.post("/api/v1/providers/", {**payload, "api_key": KEY}, format="json")
        assert response.status_code == 400, payload
        error = response.json()["error"]
        assert error["code"] == "invalid" and field in error["details"], error
        assert error["message"].startswith(field)
    assert ModelProvider.objects.count() == 0 and Secret.objects.count() == 0


def test_duplicate_provider_name_is_rejected(api, workspace):
    payload = {
        "name": "Same",
        "base_url": "https://x.test/v1",
        "default_model": "m",
        "api_key": KEY,
    }
    assert api.post("/api/v1/providers/", payload, format="json").status_code == 201
    response = api.post("/api/v1/providers/", payload, format="json")
    assert response.status_code == 400
    assert "name" in response.json()["error"]["details"]
    assert Secret.objects.count() == 1


def test_provider_pages_never_show_the_key(web, workspace):
    response = web.post(
        reverse("settings_provider_new", kwargs={"ws": "acme"}),
        {
            "name": "Azure",
            "base_url": "https://azure.test/v1",
            "default_model": "gpt",
            "timeout_s": 60,
            "rpm_limit": 100,
            "structured_mode": "tool",
            "max_retries": 3,
            "api_key": KEY,
        },
    )
    assert response.status_code == 302, response.content
    provider = ModelProvider.objects.get(name="Azure")
    for url in [
        reverse("settings_providers", kwargs={"ws": "acme"}),
        reverse("settings_provider", kwargs={"ws": "acme", "provider_id": provider.public_id}),
    ]:
        page = web.get(url).content.decode()
        assert "Azure" in page and KEY not in page


def test_log_filter_redacts_keys(caplog):
    from assay.safety.redact import redact

    assert KEY not in redact(f"calling with {KEY}")
    assert "asy_" not in redact("Token asy_abcdefghijklmnop")
