"""Bodies that are too deep, of the wrong shape or too large get the API's JSON error (4xx
naming the problem), never a 500 or Django's HTML page; a bad JSONL upload leaves nothing."""

import json

import pytest

from evalsets import services as evalset_services
from evalsets.models import EvalSetImport

pytestmark = pytest.mark.django_db

POSTS = [
    "/api/v1/evaluators/",
    "/api/v1/experiments/",
    "/api/v1/evalsets/",
    "/api/v1/providers/",
    "/api/v1/tokens/",
    "/api/v1/members/",
]


def post_raw(api, url, body: str):
    return api.generic("POST", url, body, content_type="application/json")


def assert_json_error(response, status: int, words: str):
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    assert words in response.json()["error"]["message"]


@pytest.mark.parametrize("url", POSTS)
@pytest.mark.parametrize("depth", [65, 100_000])
def test_bodies_nested_too_deeply_are_400(api, url, depth):
    body = '{"a":' * depth + "1" + "}" * depth
    assert_json_error(post_raw(api, url, body), 400, "nested more than 64 levels")


def test_a_body_at_the_depth_limit_is_parsed(api):
    inner = {"x": 1}
    for _ in range(62):
        inner = {"x": inner}
    response = api.post(
        "/api/v1/evaluators/", {"name": "d", "kind": "code", "tags": inner}, format="json"
    )
    assert response.status_code == 400 and "tags" in response.json()["error"]["details"]


@pytest.mark.parametrize("url", POSTS)
@pytest.mark.parametrize(
    ("body", "shape"),
    [
        ("null", "null"),
        ("5", "a number"),
        ('"x"', "a string"),
        ("[]", "an array"),
        ("true", "a boolean"),
    ],
)
def test_scalar_and_null_bodies_are_400(api, url, body, shape):
    assert_json_error(post_raw(api, url, body), 400, f"must be a JSON object, not {shape}")


def test_item_writes_with_a_null_body_are_400(api, workspace, user):
    evalset = evalset_services.evalset_create(workspace=workspace, user=user, name="s")
    response = post_raw(api, f"/api/v1/evalsets/{evalset.public_id}/items/", "null")
    assert_json_error(response, 400, "must be a JSON object")


def test_json_bodies_over_the_limit_are_413(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = json.dumps({"name": "x" * 20_000, "kind": "code"})
    assert_json_error(post_raw(api, "/api/v1/evaluators/", body), 413, "the limit is 10,000")


def test_form_fields_over_the_limit_are_json_errors(api, workspace, user, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    evalset = evalset_services.evalset_create(workspace=workspace, user=user, name="s")
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("rows.csv", b"question\nq\n", content_type="text/csv")
    response = api.post(
        f"/api/v1/evalsets/{evalset.public_id}/imports/",
        {"file": upload, "mapping": "x" * 20_000},
        format="multipart",
    )
    assert response.status_code == 413, response.content[:300]
    assert response["Content-Type"].startswith("application/json")


def test_unhandled_errors_under_the_api_are_json(client):
    from assay.api.errors import json_server_error

    request = client.get("/api/v1/").wsgi_request
    response = json_server_error(request)
    assert response.status_code == 500 and json.loads(response.content)["error"]["code"]


def test_a_deeply_nested_jsonl_line_is_a_row_error(api, workspace, user, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.evalsets.conftest import run_now

    evalset = evalset_services.evalset_create(
        workspace=workspace,
        user=user,
        name="s",
        columns=[{"name": "question", "content_type": "Text"}],
    )
    deep = "[" * 100_000 + "]" * 100_000
    body = '{"question": "fine"}\n{"question": ' + deep + "}\n"
    upload = SimpleUploadedFile("rows.jsonl", body.encode())
    response = api.post(
        f"/api/v1/evalsets/{evalset.public_id}/imports/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 202, response.content[:300]
    job = run_now(EvalSetImport.objects.get())
    assert job.status == "failed"
    problem = "the JSON on this line is nested too deeply"
    assert job.errors == [
        {"line": 2, "column": "", "problem": problem, "msgid": problem, "params": {}}
    ]


def test_a_deeply_nested_first_jsonl_line_refuses_the_upload_and_keeps_no_file(
    api, workspace, user, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path / "media"
    from django.core.files.uploadedfile import SimpleUploadedFile

    evalset = evalset_services.evalset_create(workspace=workspace, user=user, name="s")
    deep = "[" * 100_000 + "]" * 100_000
    upload = SimpleUploadedFile("rows.jsonl", ('{"q": ' + deep + "}\n").encode())
    response = api.post(
        f"/api/v1/evalsets/{evalset.public_id}/imports/", {"file": upload}, format="multipart"
    )
    assert response.status_code == 400 and "file" in response.json()["error"]["details"]
    assert EvalSetImport.objects.count() == 0
    leftovers = [p for p in (tmp_path / "media").rglob("*") if p.is_file()]
    assert leftovers == []
