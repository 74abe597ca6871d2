"""The API docs: every operation has a summary, a description written for users and one area
tag; the docs are linked from the nav and the settings pages; a request without credentials we
take is told which scheme to use."""

from __future__ import annotations

import inspect
import re

import pytest
from django.urls import reverse
from drf_spectacular.generators import EndpointEnumerator
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

AREAS = {
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
METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture
def schema(client):
    # served like the docs page loads it, so lazy translations must render
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    return response.json()


def operations(schema) -> list[tuple[str, dict]]:
    return [
        (f"{method.upper()} {path}", operation)
        for path, entries in schema["paths"].items()
        for method, operation in entries.items()
        if method in METHODS
    ]


def _flat(text: str) -> str:
    return " ".join((text or "").split())


def view_docstrings() -> set[str]:
    """Every docstring of the API's views and their actions: what drf-spectacular would copy
    into a description that nobody wrote."""
    found = set()
    for _path, _regex, _method, callback in EndpointEnumerator().get_api_endpoints():
        view = callback.cls
        found.add(_flat(inspect.getdoc(view)))
        for name in (getattr(callback, "actions", None) or {}).values():
            found.add(_flat(inspect.getdoc(getattr(view, name))))
        for name in METHODS:
            if hasattr(view, name):
                found.add(_flat(inspect.getdoc(getattr(view, name))))
    return found - {""}


def test_every_operation_has_a_summary_a_description_and_one_area_tag(schema):
    listed = operations(schema)
    assert len(listed) > 80  # the whole API, each route once
    docstrings = view_docstrings()
    problems = []
    for name, operation in listed:
        summary = operation.get("summary") or ""
        description = _flat(operation.get("description"))
        if not summary.strip() or len(summary) > 60 or summary.endswith("."):
            problems.append(f"{name}: summary {summary!r} (a short phrase, no full stop)")
        if len(description) < 40 or not re.search(r"[.)]$", description):
            problems.append(f"{name}: description {description!r} is not a sentence")
        if description in docstrings:
            problems.append(f"{name}: the description is a view docstring, not written for users")
        if operation.get("tags") is None or len(operation["tags"]) != 1:
            problems.append(f"{name}: tags {operation.get('tags')} (exactly one area)")
        elif operation["tags"][0] not in AREAS:
            problems.append(f"{name}: tag {operation['tags'][0]!r} is not an area")
    assert problems == []


def test_no_two_operations_share_a_summary(schema):
    seen: dict[str, list[str]] = {}
    for name, operation in operations(schema):
        seen.setdefault(operation.get("summary", ""), []).append(name)
    assert {s: names for s, names in seen.items() if len(names) > 1} == {}


def test_each_route_is_listed_once_not_again_without_its_slash(schema):
    paths = set(schema["paths"])
    assert not [p for p in paths if f"{p}/" in paths]
    assert "/api/v1/evaluators/" in paths and "/api/v1/compare" in paths


def test_every_area_is_described_and_the_schema_says_how_to_authenticate(schema):
    assert {t["name"] for t in schema["tags"]} == AREAS
    assert all(t.get("description") for t in schema["tags"])
    assert "Authorization: Bearer <token>" in schema["info"]["description"]
    scheme = schema["components"]["securitySchemes"]["token"]
    assert scheme["scheme"] == "bearer" and "Bearer" in scheme["description"]


def _links_to_docs(html: str, container: str) -> bool:
    """Whether the element that opens with `container` holds a link to the docs page."""
    start = html.find(container)
    end = html.find("</nav>", start)
    return start >= 0 and f'href="{reverse("api-docs")}"' in html[start:end]


def test_the_docs_are_linked_from_the_nav_and_the_settings_pages(web, workspace):
    page = web.get(reverse("evaluators:list", kwargs={"ws": workspace.slug}))
    assert page.status_code == 200
    assert _links_to_docs(page.content.decode(), '<nav class="mainnav"')
    settings = web.get(reverse("settings", kwargs={"ws": workspace.slug}), follow=True)
    assert settings.status_code == 200
    html = settings.content.decode()
    assert _links_to_docs(html, '<nav class="tabs"')
    url = reverse("settings_tokens", kwargs={"ws": workspace.slug})
    created = web.post(url, {"name": "ci"}).content.decode()  # the new key says how to send it
    assert "Authorization: Bearer &lt;key&gt;" in created
    assert f'<a href="{reverse("api-docs")}">' in created
    docs = web.get(reverse("api-docs"))
    assert docs.status_code == 200 and reverse("schema").encode() in docs.content


def test_a_signed_out_visitor_sees_no_nav_link(client):
    # the nav is for members; the docs page itself stays readable without signing in
    assert 'data-nav="api-docs"' not in client.get(reverse("login")).content.decode()
    assert client.get(reverse("api-docs")).status_code == 200


def test_the_docs_page_links_back_to_the_app(web):
    docs = web.get(reverse("api-docs"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    back = docs.split('<nav id="api-docs-back"')[1].split("</nav>")[0]
    assert f'href="{reverse("home")}"' in back and "Back to Assay" in back
    home = web.get(reverse("home"))
    assert home.status_code == 302  # into the user's workspace
    zh = web.get(reverse("api-docs"), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<html lang="zh-hans">' in zh


@pytest.mark.parametrize("header", [None, "Basic dXNlcjpwYXNz"])
def test_a_request_without_credentials_we_take_is_told_the_scheme(db, header):
    client = APIClient()
    if header:
        client.credentials(HTTP_AUTHORIZATION=header)
    response = client.get("/api/v1/evaluators/")
    assert response.status_code == 401
    error = response.json()["error"]
    assert error["code"] == "not_authenticated"
    assert "'Authorization: Bearer <key>'" in error["message"]
    assert "'Token <key>'" in error["message"]
