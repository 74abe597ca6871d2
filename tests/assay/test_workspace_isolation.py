"""An outsider gets 404 for every object of another workspace, through pages and the API."""

import pytest
from django.urls import reverse

from assay import services
from assay.models import Membership

pytestmark = pytest.mark.django_db


@pytest.fixture
def acme_objects(user, workspace):
    provider = services.provider_create(
        workspace=workspace,
        name="OpenAI",
        base_url="https://llm.test/v1",
        default_model="gpt-x",
        api_key="sk-acme-secret-000000000000",
    )
    token = services.token_issue(workspace=workspace, user=user, name="acme").token
    return {"provider": provider, "token": token, "membership": workspace.memberships.first()}


def test_outsider_pages_are_404(client, outsider, acme_objects):
    client.force_login(outsider)
    pid = acme_objects["provider"].public_id
    tid = acme_objects["token"].public_id
    mid = acme_objects["membership"].pk
    gets = [
        reverse("evaluators:list", kwargs={"ws": "acme"}),
        reverse("evalsets:list", kwargs={"ws": "acme"}),
        reverse("experiments:list", kwargs={"ws": "acme"}),
        reverse("settings_providers", kwargs={"ws": "acme"}),
        reverse("settings_members", kwargs={"ws": "acme"}),
        reverse("settings_tokens", kwargs={"ws": "acme"}),
        reverse("settings_provider", kwargs={"ws": "acme", "provider_id": pid}),
    ]
    for url in gets:
        assert client.get(url).status_code == 404, url
    posts = [
        reverse("settings_provider_delete", kwargs={"ws": "acme", "provider_id": pid}),
        reverse("settings_token_revoke", kwargs={"ws": "acme", "token_id": tid}),
        reverse("settings_member_change", kwargs={"ws": "acme", "member_id": mid}),
    ]
    for url in posts:
        assert client.post(url, {"action": "remove"}).status_code == 404, url
    # someone else's provider reached through the outsider's own workspace is 404 too
    own = reverse("settings_provider", kwargs={"ws": "other", "provider_id": pid})
    assert client.get(own).status_code == 404
    acme_objects["provider"].refresh_from_db()
    assert acme_objects["token"].__class__.objects.get(pk=acme_objects["token"].pk).is_active


def test_outsider_api_is_404(outsider_api, acme_objects):
    pid = acme_objects["provider"].public_id
    tid = acme_objects["token"].public_id
    mid = acme_objects["membership"].pk
    for method, url in [
        ("get", f"/api/v1/providers/{pid}/"),
        ("patch", f"/api/v1/providers/{pid}/"),
        ("delete", f"/api/v1/providers/{pid}/"),
        ("get", f"/api/v1/tokens/{tid}/"),
        ("post", f"/api/v1/tokens/{tid}/revoke/"),
        ("patch", f"/api/v1/members/{mid}/"),
        ("delete", f"/api/v1/members/{mid}/"),
        ("get", "/api/v1/workspaces/acme/"),
    ]:
        response = getattr(outsider_api, method)(url, {"role": "viewer"}, format="json")
        assert response.status_code == 404, (method, url, response.content)
        assert response.json()["error"]["code"] == "not_found"
    assert "OpenAI" not in str(outsider_api.get("/api/v1/providers/").json())


def test_outsider_session_cannot_pick_the_workspace(client, outsider, acme_objects):
    client.force_login(outsider)
    response = client.get("/api/v1/providers/", HTTP_X_ASSAY_WORKSPACE="acme")
    assert response.status_code == 404


def test_viewer_reads_but_cannot_write(member, workspace, api_client_for, acme_objects):
    viewer = member("victor", Membership.Role.VIEWER)
    client = api_client_for(workspace, viewer)
    assert client.get("/api/v1/providers/").status_code == 200
    response = client.post(
        "/api/v1/providers/",
        {"name": "x", "base_url": "https://x.test/v1", "default_model": "m"},
        format="json",
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"


def test_editor_cannot_manage_members(member, workspace, api_client_for):
    editor = member("eddie", Membership.Role.EDITOR)
    client = api_client_for(workspace, editor)
    assert client.get("/api/v1/members/").status_code == 200
    response = client.post(
        "/api/v1/members/", {"username": "eddie", "role": "owner"}, format="json"
    )
    assert response.status_code == 403


def test_a_token_sees_only_its_own_workspace_read_only(api, user, workspace):
    services.workspace_create(name="Second", slug="second", owner=user)
    listed = api.get("/api/v1/workspaces/").json()
    slugs = [w["slug"] for w in listed.get("results", listed)]
    assert slugs == ["acme"]
    assert api.get("/api/v1/workspaces/second/").status_code == 404
    for method, url, body in [
        ("post", "/api/v1/workspaces/", {"name": "Third"}),
        ("patch", "/api/v1/workspaces/acme/", {"name": "Renamed"}),
        ("patch", "/api/v1/workspaces/second/", {"name": "Renamed"}),
    ]:
        response = getattr(api, method)(url, body, format="json")
        assert response.status_code in (403, 404), (method, url)
        assert response.json()["error"]["code"] in ("permission_denied", "not_found")
    from assay.models import Workspace

    assert sorted(Workspace.objects.values_list("name", flat=True)) == ["Acme", "Second"]


def test_a_signed_in_session_still_manages_its_workspaces(client, user, workspace):
    client.force_login(user)
    assert (
        client.post(
            "/api/v1/workspaces/", {"name": "Third"}, content_type="application/json"
        ).status_code
        == 201
    )
    response = client.patch(
        "/api/v1/workspaces/acme/", {"name": "Renamed"}, content_type="application/json"
    )
    assert response.status_code == 200 and response.json()["name"] == "Renamed"
