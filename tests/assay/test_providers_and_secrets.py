"""Providers through the API and pages; keys are encrypted and never shown or logged."""

import logging

import pytest
from django.urls import reverse

from assay import selectors, services
from assay.models import Membership, ModelProvider, Secret

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


SECRET_VALUE = "app-token-0123456789abcdef"


def secrets_url(name="settings_secrets", **kwargs):
    return reverse(name, kwargs={"ws": "acme", **kwargs})


def test_an_owner_adds_a_secret_whose_value_is_never_shown(web, workspace):
    response = web.post(secrets_url(), {"name": "APP_TOKEN", "value": SECRET_VALUE})
    assert response.status_code == 302, response.content
    page = web.get(secrets_url()).content.decode()
    assert "APP_TOKEN" in page and SECRET_VALUE not in page
    assert SECRET_VALUE[-4:] in page  # the hint, so an owner can tell values apart
    stored = Secret.objects.get(workspace=workspace, name="APP_TOKEN")
    assert SECRET_VALUE not in stored.ciphertext


def test_saving_a_name_again_replaces_its_value(web, workspace):
    web.post(secrets_url(), {"name": "APP_TOKEN", "value": "first-value-1111"})
    web.post(secrets_url(), {"name": "APP_TOKEN", "value": "second-value-2222"})
    assert Secret.objects.filter(workspace=workspace, name="APP_TOKEN").count() == 1
    assert platform_secret_value(workspace, "APP_TOKEN") == "second-value-2222"


def test_a_bad_secret_name_is_named_and_nothing_saved(web, workspace):
    response = web.post(secrets_url(), {"name": "has space", "value": SECRET_VALUE})
    assert response.status_code == 400
    assert "name" in response.content.decode().lower()
    assert not Secret.objects.filter(workspace=workspace).exclude(name="").exists()


def test_an_owner_deletes_a_secret(web, workspace):
    web.post(secrets_url(), {"name": "APP_TOKEN", "value": SECRET_VALUE})
    secret = Secret.objects.get(workspace=workspace, name="APP_TOKEN")
    response = web.post(secrets_url("settings_secret_delete", secret_id=secret.public_id))
    assert response.status_code == 302
    assert not Secret.objects.filter(pk=secret.pk).exists()


@pytest.mark.parametrize("role", [Membership.Role.EDITOR, Membership.Role.VIEWER])
def test_only_owners_change_secrets(client, member, workspace, role):
    secret = services.secret_named_save(workspace=workspace, name="APP_TOKEN", value=SECRET_VALUE)
    client.force_login(member("eddie", role))
    page = client.get(secrets_url())
    assert page.status_code == 200 and "APP_TOKEN" in page.content.decode()
    assert 'id="secret-form"' not in page.content.decode()
    assert client.post(secrets_url(), {"name": "X", "value": "y"}).status_code == 403
    delete = secrets_url("settings_secret_delete", secret_id=secret.public_id)
    assert client.post(delete).status_code == 403
    assert Secret.objects.filter(pk=secret.pk).exists()
    assert not Secret.objects.filter(workspace=workspace, name="X").exists()


def platform_secret_value(workspace, name):
    (secret,) = selectors.secrets_named(workspace=workspace, names=[name])
    return services.secret_reveal(secret=secret)


def test_test_connection_lists_models_and_never_shows_the_key(api, workspace, llm_server):
    from tests.support.factories import make_provider

    provider = make_provider(workspace=workspace, server=llm_server, api_key=KEY)
    response = api.post(f"/api/v1/providers/{provider.public_id}/test-connection/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ok"] is True and body["models"] and "1 model listed" in body["message"]
    seen = llm_server.requests[-1]
    assert seen.path.endswith("/models") and KEY in str(seen.headers)  # sent, to it alone
    assert seen.headers["baggage"] == "assay.experiment=debug"  # marked as Assay's own call
    assert KEY not in response.content.decode()


def test_test_connection_names_a_refusal(api, workspace, settings):
    settings.ASSAY_OUTBOUND_ALLOW = "public"
    provider = services.provider_create(
        workspace=workspace,
        name="Nowhere",
        base_url="https://llm.example.test/v1",
        default_model="m",
        api_key=KEY,
    )
    provider.base_url = "http://127.0.0.1:9/v1"  # an internal address the policy refuses
    provider.save(update_fields=["base_url"])
    body = api.post(f"/api/v1/providers/{provider.public_id}/test-connection/").json()
    assert body["ok"] is False and KEY not in body["message"]


def test_the_provider_page_tests_its_connection(web, workspace, llm_server):
    from tests.support.factories import make_provider

    provider = make_provider(workspace=workspace, server=llm_server, api_key=KEY)
    page = web.get(
        reverse("settings_provider", kwargs={"ws": "acme", "provider_id": provider.public_id})
    )
    assert 'id="provider-test"' in page.content.decode()
    url = reverse(
        "settings_provider_test", kwargs={"ws": "acme", "provider_id": provider.public_id}
    )
    tried = web.post(url).content.decode()
    assert 'data-ok="1"' in tried and "connected" in tried and KEY not in tried
