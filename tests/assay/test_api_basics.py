"""The shared API base: error body, pagination, schema and docs, workspaces and members."""

import pytest

from assay.models import Membership, Workspace

pytestmark = pytest.mark.django_db


def test_unknown_api_path_uses_the_error_body(api):
    response = api.get("/api/v1/nothing-here/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_schema_and_docs_page(api, client):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    text = schema.content.decode()
    for path in [
        "/api/v1/providers/",
        "/api/v1/tokens/",
        "/api/v1/members/",
        "/api/v1/workspaces/",
    ]:
        assert path in text
    docs = client.get("/api/docs/")
    assert docs.status_code == 200 and b"vendor/swagger-ui" in docs.content
    assert b"cdn" not in docs.content.lower()


def test_pagination(api, workspace):
    from assay import services

    for i in range(7):
        services.provider_create(
            workspace=workspace, name=f"p{i}", base_url="https://x.test/v1", default_model="m"
        )
    first = api.get("/api/v1/providers/?page_size=5").json()
    assert first["count"] == 7 and len(first["results"]) == 5 and first["next"]
    second = api.get("/api/v1/providers/?page_size=5&page=2").json()
    assert len(second["results"]) == 2


def test_create_workspace_and_manage_members(api, user, make_user):
    from rest_framework.test import APIClient

    session = APIClient()  # workspaces are made by signed-in people; tokens live in one
    session.force_login(user)
    response = session.post("/api/v1/workspaces/", {"name": "Labs", "slug": "labs"}, format="json")
    assert response.status_code == 201 and response.json()["role"] == "owner"
    dup = session.post("/api/v1/workspaces/", {"name": "Labs", "slug": "labs"}, format="json")
    assert dup.status_code == 400 and "slug" in dup.json()["error"]["details"]
    make_user("bob")
    added = api.post("/api/v1/members/", {"username": "bob", "role": "viewer"}, format="json")
    assert added.status_code == 201, added.content
    again = api.post("/api/v1/members/", {"username": "bob", "role": "viewer"}, format="json")
    assert again.status_code == 400
    ghost = api.post("/api/v1/members/", {"username": "ghost", "role": "viewer"}, format="json")
    assert ghost.status_code == 400 and "username" in ghost.json()["error"]["details"]
    bad_role = api.patch(f"/api/v1/members/{added.json()['id']}/", {"role": "god"}, format="json")
    assert bad_role.status_code == 400 and "role" in bad_role.json()["error"]["details"]
    assert Workspace.objects.get(slug="acme").memberships.count() == 2


def test_last_owner_cannot_leave(api, workspace):
    owner = workspace.memberships.get(role=Membership.Role.OWNER)
    response = api.delete(f"/api/v1/members/{owner.pk}/")
    assert response.status_code == 400
    assert "owner" in response.json()["error"]["message"]
    assert workspace.memberships.count() == 1


def test_the_schema_tags_every_operation_with_its_area_and_documents_bearer(client):
    import yaml

    schema = yaml.safe_load(client.get("/api/schema/").content)
    tags = {
        tag
        for operations in schema["paths"].values()
        for operation in operations.values()
        if isinstance(operation, dict)
        for tag in operation.get("tags", [])
    }
    assert tags == {
        "evaluators",
        "evalsets",
        "experiments",
        "compare",
        "settings",
        "traces",
        "online",
        "annotation",
        "imports",
    }
    assert schema["components"]["securitySchemes"]["token"]["scheme"] == "bearer"
