"""Ingest keys: shown once, only their hash stored, write-only (refused by the rest of the
API), revocable, another workspace's invisible."""

import io

import pytest
from django.core.management import call_command

from traces.models import IngestKey
from traces.services import ingest_key_issue, ingest_key_revoke

from .support import export, post, span

pytestmark = pytest.mark.django_db


def test_an_owner_creates_a_key_shown_once_and_stored_as_a_hash(api):
    created = api.post("/api/v1/ingest-keys/", {"name": "prod exporter"}, format="json")
    assert created.status_code == 201, created.content
    key = created.json()["key"]
    assert key.startswith("asy_ingest_")
    stored = IngestKey.objects.get()
    assert key not in stored.key_hash and stored.key_hash != key and len(stored.key_hash) == 64
    listed = api.get("/api/v1/ingest-keys/").json()
    assert [k["name"] for k in listed["results"]] == ["prod exporter"]
    assert key not in str(listed)
    one = api.get(f"/api/v1/ingest-keys/{stored.public_id}/").json()
    assert "key" not in one


def test_the_key_sends_spans_and_nothing_else(api, client, workspace):
    key = api.post("/api/v1/ingest-keys/", {"name": "k"}, format="json").json()["key"]
    assert post(client, export(span(1)).SerializeToString(), key).status_code == 200
    for path in ("/api/v1/evalsets/", "/api/v1/ingest-keys/", "/api/v1/tokens/"):
        refused = client.get(path, HTTP_AUTHORIZATION=f"Bearer {key}")
        assert refused.status_code == 401, path
    made = client.post(
        "/api/v1/ingest-keys/",
        {"name": "more"},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    assert made.status_code == 401
    assert IngestKey.objects.count() == 1


def test_an_api_token_does_not_send_spans(api, client):
    answer = post(client, export(span(1)).SerializeToString(), api.token_key)
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == "Bearer"


def test_a_revoked_key_is_refused_with_403(client, workspace):
    issued = ingest_key_issue(workspace=workspace, name="old")
    ingest_key_revoke(ingest_key=issued.ingest_key)
    assert post(client, export(span(1)).SerializeToString(), issued.key).status_code == 403


def test_a_viewer_cannot_create_keys(api_client_for, member, workspace):
    viewer = member("vera", role="viewer")
    answer = api_client_for(workspace, viewer).post(
        "/api/v1/ingest-keys/", {"name": "x"}, format="json"
    )
    assert answer.status_code == 403
    assert not IngestKey.objects.exists()


def test_an_outsider_neither_sees_nor_revokes_a_key(api, outsider_api, workspace):
    issued = ingest_key_issue(workspace=workspace, name="acme's")
    public_id = issued.ingest_key.public_id
    assert outsider_api.get("/api/v1/ingest-keys/").json()["results"] == []
    assert outsider_api.get(f"/api/v1/ingest-keys/{public_id}/").status_code == 404
    assert outsider_api.post(f"/api/v1/ingest-keys/{public_id}/revoke/").status_code == 404
    issued.ingest_key.refresh_from_db()
    assert issued.ingest_key.is_active
    revoked = api.post(f"/api/v1/ingest-keys/{public_id}/revoke/")
    assert revoked.status_code == 200 and revoked.json()["revoked_at"]


def test_the_command_prints_the_key_alone_on_its_last_line(client, workspace):
    out = io.StringIO()
    call_command("issue_ingest_key", "--workspace", "acme", stdout=out)
    key = out.getvalue().strip().splitlines()[-1]
    assert key.startswith("asy_ingest_") and " " not in key
    assert post(client, export(span(1)).SerializeToString(), key).status_code == 200
