"""The imports API: POST /api/v1/imports/{kind}/ with files by name and JSON options (201 new,
200 the same files again, 400 naming the file and place), the list and one import; editors
import, viewers read, outsiders see nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assay.models import Membership
from evalsets.models import EvalSet
from imports.models import ImportRun, ImportStatus

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_evals"
DEFINITION = (FIXTURES / "definition.json").read_bytes()
DATA = (FIXTURES / "data.jsonl").read_bytes()

pytestmark = pytest.mark.django_db


def _files(definition=DEFINITION, data=DATA):
    return {
        "definition": SimpleUploadedFile("eval.json", definition),
        "data": SimpleUploadedFile("data.jsonl", data),
    }


def test_an_import_is_created_then_reused(api, workspace):
    first = api.post("/api/v1/imports/openai-evals/", _files(), format="multipart")
    assert first.status_code == 201, first.content
    body = first.json()
    assert body["kind"] == "openai-evals" and body["status"] == "completed"
    assert body["file_names"] == {"definition": "eval.json", "data": "data.jsonl"}
    assert any("metric exact_match" in line["became"] for line in body["report"]["lines"])
    again = api.post("/api/v1/imports/openai-evals/", _files(), format="multipart")
    assert again.status_code == 200 and again.json()["id"] == body["id"]
    listed = api.get("/api/v1/imports/").json()["results"]
    assert [row["id"] for row in listed] == [body["id"]]
    one = api.get(f"/api/v1/imports/{body['id']}/")
    assert one.status_code == 200 and one.json()["report"] == body["report"]


def test_options_are_json_and_change_the_import(api, workspace):
    files = _files()
    files["options"] = json.dumps({"model": "judge-2"})
    response = api.post("/api/v1/imports/openai-evals/", files, format="multipart")
    assert response.status_code == 201
    bad = {**_files(), "options": "[1"}
    answer = api.post("/api/v1/imports/openai-evals/", bad, format="multipart")
    assert answer.status_code == 400 and "options" in answer.json()["error"]["details"]


def test_a_problem_names_the_file_and_place_and_keeps_nothing(api, workspace):
    files = _files(data=b'{"item": {"ticket_text": "x"}}\nnot json')
    response = api.post("/api/v1/imports/openai-evals/", files, format="multipart")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["message"].startswith("data, line 2: not JSON")
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    failed = ImportRun.objects.get(workspace=workspace)
    assert failed.status == ImportStatus.FAILED and "line 2" in failed.error


def test_an_unknown_importer_and_a_missing_file(api):
    assert api.post("/api/v1/imports/nothing/", _files(), format="multipart").status_code == 404
    missing = {"definition": SimpleUploadedFile("eval.json", DEFINITION)}
    response = api.post("/api/v1/imports/openai-evals/", missing, format="multipart")
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "data: this file is required"


def test_viewers_read_and_cannot_import(api_client_for, workspace, member, api):
    made = api.post("/api/v1/imports/openai-evals/", _files(), format="multipart").json()
    viewer = api_client_for(workspace, member("vera", Membership.Role.VIEWER))
    refused = viewer.post("/api/v1/imports/openai-evals/", _files(), format="multipart")
    assert refused.status_code == 403
    assert viewer.get(f"/api/v1/imports/{made['id']}/").status_code == 200


def test_outsiders_see_no_import(api, outsider_api, workspace):
    made = api.post("/api/v1/imports/openai-evals/", _files(), format="multipart").json()
    assert outsider_api.get(f"/api/v1/imports/{made['id']}/").status_code == 404
    assert outsider_api.get("/api/v1/imports/").json()["results"] == []
    posted = outsider_api.post("/api/v1/imports/openai-evals/", _files(), format="multipart")
    assert posted.status_code in (201, 400)  # into the outsider's own workspace, never ours
    assert ImportRun.objects.filter(workspace=workspace).count() == 1
