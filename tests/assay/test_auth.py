"""Sign-in pages and API token authentication."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from assay import services
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def test_sign_in_page_renders(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b"Sign in to Assay" in response.content


def test_anonymous_is_sent_to_sign_in(client, workspace):
    response = client.get(reverse("evaluators:list", kwargs={"ws": "acme"}))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_sign_in_and_out(client, user, workspace):
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    home = client.get(response["Location"])
    assert home.status_code == 302 and "/w/acme/evaluators/" in home["Location"]
    page = client.get(home["Location"])
    assert b"alice" in page.content
    client.post(reverse("logout"))
    assert client.get(reverse("evaluators:list", kwargs={"ws": "acme"})).status_code == 302


def test_wrong_password_is_refused(client, user):
    response = client.post(reverse("login"), {"username": "alice", "password": "nope"})
    assert response.status_code == 200
    assert b"didn&#x27;t match" in response.content or b"didn't match" in response.content


def test_token_auth(api, workspace):
    response = api.get("/api/v1/workspaces/")
    assert response.status_code == 200
    assert [w["slug"] for w in response.json()["results"]] == ["acme"]


def test_missing_and_bad_tokens(workspace):
    client = APIClient()
    response = client.get("/api/v1/providers/")
    assert response.status_code in (401, 403)
    assert response.json()["error"]["code"] in {"not_authenticated", "authentication_failed"}
    client.credentials(HTTP_AUTHORIZATION="Token asy_not-a-real-key")
    response = client.get("/api/v1/providers/")
    assert response.status_code == 401
    assert response.json()["error"]["message"] == "Invalid or revoked API token."


def test_token_is_hashed_and_revocable(user, workspace):
    issued = services.token_issue(workspace=workspace, user=user, name="ci")
    assert issued.key not in issued.token.key_hash and len(issued.token.key_hash) == 64
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
    assert client.get("/api/v1/providers/").status_code == 200
    services.token_revoke(token=issued.token)
    assert client.get("/api/v1/providers/").status_code == 401


def test_token_of_removed_member_stops_working(user, workspace, member):
    bob = member("bob")
    issued = services.token_issue(workspace=workspace, user=bob, name="bob")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
    assert client.get("/api/v1/providers/").status_code == 200
    services.membership_remove(membership=workspace.memberships.get(user=bob))
    assert client.get("/api/v1/providers/").status_code == 401


def test_token_created_through_api_is_shown_once(api):
    created = api.post("/api/v1/tokens/", {"name": "deploy"}, format="json")
    assert created.status_code == 201
    key = created.json()["key"]
    assert key.startswith("asy_")
    listed = api.get("/api/v1/tokens/").json()["results"]
    assert all("key" not in t for t in listed)
    assert key not in str(listed)


def test_bearer_works_like_token_and_a_wrong_scheme_is_named(api, workspace):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {api.token_key}")
    response = client.get("/api/v1/workspaces/")
    assert response.status_code == 200 and response.json()["results"][0]["slug"] == "acme"
    client.credentials(HTTP_AUTHORIZATION=f"JWT {api.token_key}")
    refused = client.get("/api/v1/workspaces/")
    assert refused.status_code == 401
    assert "send 'Token <key>' or 'Bearer <key>'" in refused.json()["error"]["message"]
    assert "'JWT'" in refused.json()["error"]["message"]


def test_the_sign_in_page_names_the_demo_account_only_where_the_demo_is(client, settings, db):
    from assay.demo import DEMO_PASSWORD
    from assay.models import Workspace

    assert "demo-sign-in" not in client.get("/accounts/login/").content.decode()
    Workspace.objects.create(slug="demo", name="Demo")
    page = client.get("/accounts/login/").content.decode()
    assert 'id="demo-sign-in"' in page and DEMO_PASSWORD in page
    settings.PRODUCTION = True
    assert DEMO_PASSWORD not in client.get("/accounts/login/").content.decode()
