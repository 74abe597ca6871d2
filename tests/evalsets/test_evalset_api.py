"""Evaluation sets through the API: the whole flow, bad input, and outsiders."""

import json

import pytest

from evalsets.demo import png_bytes
from evalsets.models import EvalSet, EvalSetImport, EvalSetItem, EvalSetVersion
from tests.evalsets.conftest import COLUMNS, run_now, upload

pytestmark = pytest.mark.django_db

URL = "/api/v1/evalsets/"


def error_of(response):
    return response.json()["error"]


@pytest.fixture
def set_id(api):
    created = api.post(
        URL, {"name": "Capitals", "columns": COLUMNS, "tags": ["geo"]}, format="json"
    )
    assert created.status_code == 201, created.content
    return created.json()["id"]


def items_url(set_id):
    return f"{URL}{set_id}/items/"


def test_create_list_update_delete(api, set_id):
    listed = api.get(URL).json()["results"]
    assert [(e["name"], e["draft_item_count"]) for e in listed] == [("Capitals", 0)]
    patched = api.patch(f"{URL}{set_id}/", {"description": "Flags"}, format="json")
    assert patched.status_code == 200 and patched.json()["description"] == "Flags"
    assert api.delete(f"{URL}{set_id}/").status_code == 204
    assert api.get(URL).json()["results"] == []
    assert api.get(f"{URL}{set_id}/").status_code == 404


def test_create_bad_input(api, set_id):
    duplicate = api.post(URL, {"name": "Capitals"}, format="json")
    assert duplicate.status_code == 400
    assert "already exists" in error_of(duplicate)["message"]
    bad = api.post(
        URL,
        {
            "name": "X",
            "columns": [
                {"name": "tags", "content_type": "Text"},
                {"name": "ok", "content_type": "Video"},
            ],
        },
        format="json",
    )
    details = error_of(bad)["details"]
    assert "reserved" in details["columns[0]"][0] and "content_type" in details["columns[1]"][0]
    assert api.post(URL, {"name": "Y", "colour": "red"}, format="json").status_code == 400
    assert EvalSet.objects.count() == 1


def test_items_bulk_is_all_or_nothing(api, set_id):
    ok = {"data": {"question": "Capital of France?", "answer": "Paris"}, "tags": ["europe"]}
    bad = {"data": {"question": "Q", "image": "not a link"}}
    response = api.post(items_url(set_id), {"create": [ok, bad]}, format="json")
    assert response.status_code == 400
    details = error_of(response)["details"]
    assert "expected an image URL" in details["create[1].data.image"][0]
    assert EvalSetItem.objects.count() == 0

    created = api.post(items_url(set_id), {"create": [ok, ok]}, format="json").json()["created"]
    first, second = created[0]["item_id"], created[1]["item_id"]
    result = api.post(
        items_url(set_id),
        {"update": [{"item_id": first, "tags": ["renamed"]}], "delete": [second]},
        format="json",
    ).json()
    assert result["updated"][0]["tags"] == ["renamed"] and result["deleted"] == 1
    missing = api.post(
        items_url(set_id), {"delete": ["0" * 8 + "-0000-0000-0000-" + "0" * 12]}, format="json"
    )
    assert missing.status_code == 400 and "No draft item" in error_of(missing)["message"]
    assert api.get(items_url(set_id)).json()["count"] == 1


def test_single_item_create_patch_delete_and_filters(api, set_id):
    one = api.post(
        items_url(set_id), {"data": {"question": "Rome?"}, "tags": ["italy"]}, format="json"
    )
    assert one.status_code == 201
    item_id = one.json()["item_id"]
    api.post(items_url(set_id), {"data": {"question": "Paris?"}, "tags": ["france"]}, format="json")
    assert [
        i["data"]["question"]["text"]
        for i in api.get(items_url(set_id) + "?tag=italy").json()["results"]
    ] == ["Rome?"]
    assert api.get(items_url(set_id) + "?q=paris").json()["count"] == 1
    patched = api.patch(f"{items_url(set_id)}{item_id}/", {"human_verdict": "fail"}, format="json")
    assert patched.json()["human_verdict"] == "fail"
    wrong = api.patch(f"{items_url(set_id)}{item_id}/", {"human_verdict": "maybe"}, format="json")
    assert wrong.status_code == 400
    assert api.delete(f"{items_url(set_id)}{item_id}/").status_code == 204
    assert api.get(f"{items_url(set_id)}{item_id}/").status_code == 404


def test_commit_versions_and_export(api, set_id):
    api.post(
        items_url(set_id), {"data": {"question": "A?", "answer": "a"}, "tags": ["x"]}, format="json"
    )
    v1 = api.post(f"{URL}{set_id}/versions/", {"version": "1.0.0", "note": "first"}, format="json")
    assert v1.status_code == 201 and v1.json()["item_count"] == 1
    again = api.post(f"{URL}{set_id}/versions/", {"version": "1.0.0"}, format="json")
    assert again.status_code == 400
    assert error_of(again)["message"] == "version: Version 1.0.0 already exists in this set."
    lower = api.post(f"{URL}{set_id}/versions/", {"version": "0.9.0"}, format="json")
    assert "not greater" in error_of(lower)["message"]
    assert api.post(f"{URL}{set_id}/versions/", {"version": "v2"}, format="json").status_code == 400
    assert EvalSetVersion.objects.count() == 1

    api.post(items_url(set_id), {"data": {"question": "B?"}}, format="json")
    assert api.get(items_url(set_id) + "?version=1.0.0").json()["count"] == 1
    assert api.get(f"{URL}{set_id}/versions/1.0.0/").json()["note"] == "first"

    csv_text = b"".join(
        api.get(f"{URL}{set_id}/export/?format=csv&version=1.0.0").streaming_content
    )
    lines = csv_text.decode().splitlines()
    assert lines[0] == "item_id,question,image,answer,tags,human_verdict,label"
    assert lines[1].endswith(",A?,,a,x,,") and len(lines) == 2
    jsonl_text = b"".join(api.get(f"{URL}{set_id}/export/?format=jsonl").streaming_content)
    records = [json.loads(line) for line in jsonl_text.decode().splitlines()]
    assert [r["question"]["text"] for r in records] == ["A?", "B?"]
    assert api.get(f"{URL}{set_id}/export/?format=xml").status_code == 400
    assert api.get(f"{URL}{set_id}/export/?version=9.9.9").status_code == 404


def test_import_endpoint_returns_202_and_status(api, set_id):
    body = "question,answer,tags\nWhat?,That,a\n"
    response = api.post(
        f"{URL}{set_id}/imports/", {"file": upload("rows.csv", body)}, format="multipart"
    )
    assert response.status_code == 202, response.content
    job = response.json()
    assert job["status"] == "queued" and job["fields"] == ["question", "answer", "tags"]
    run_now(EvalSetImport.objects.get(public_id=job["id"]))
    status = api.get(f"{URL}{set_id}/imports/{job['id']}/").json()
    assert status["status"] == "completed" and status["rows_done"] == status["rows_total"] == 1
    assert api.get(items_url(set_id)).json()["count"] == 1


def test_import_endpoint_mapping_and_bad_files(api, set_id):
    mapped = api.post(
        f"{URL}{set_id}/imports/",
        {
            "file": upload("rows.csv", "Q,extra\nhi,x\n"),
            "mapping": json.dumps({"Q": "question", "extra": ""}),
        },
        format="multipart",
    )
    assert mapped.status_code == 202, mapped.content
    unknown = api.post(
        f"{URL}{set_id}/imports/", {"file": upload("rows.csv", "Q\nhi\n")}, format="multipart"
    )
    assert unknown.status_code == 400
    assert "line 1, column 'Q': unknown column 'Q'" in error_of(unknown)["message"]
    no_format = api.post(
        f"{URL}{set_id}/imports/", {"file": upload("rows.txt", "Q\n")}, format="multipart"
    )
    assert "Cannot tell the format" in error_of(no_format)["message"]
    bad_job = api.post(
        f"{URL}{set_id}/imports/",
        {"file": upload("b.jsonl", '{"question": 1}\n{x\n')},
        format="multipart",
    ).json()
    run_now(EvalSetImport.objects.get(public_id=bad_job["id"]))
    report = api.get(f"{URL}{set_id}/imports/{bad_job['id']}/errors/")
    assert report.content.decode().splitlines()[1].startswith("2,,not valid JSON")
    assert EvalSetImport.objects.count() == 2


def test_media_upload_checks_magic_bytes(api, set_id):
    good = api.post(
        f"{URL}media/",
        {"file": upload("flag.png", png_bytes(2, 2, lambda x, y: (1, 2, 3)))},
        format="multipart",
    )
    assert good.status_code == 201, good.content
    content = good.json()
    assert content["content_type"] == "Image" and content["image"]["url"].startswith("http")
    fake = api.post(
        f"{URL}media/",
        {"file": upload("evil.png", b"<script>alert(1)</script>")},
        format="multipart",
    )
    assert fake.status_code == 400
    assert "not an image or audio file" in error_of(fake)["message"]
    wrong_kind = api.post(
        f"{URL}media/",
        {"file": upload("a.png", png_bytes(1, 1, lambda x, y: (0, 0, 0))), "content_type": "Audio"},
        format="multipart",
    )
    assert "is an image file; this column holds Audio" in error_of(wrong_kind)["message"]
    row = api.post(
        items_url(set_id), {"data": {"question": "Flag?", "image": content}}, format="json"
    )
    assert row.status_code == 201
    assert row.json()["data"]["image"]["image"]["uri"] == content["image"]["uri"]


def test_viewer_reads_but_cannot_write(member, api_client_for, workspace, set_id):
    viewer = api_client_for(workspace, member("victor", "viewer"))
    assert viewer.get(f"{URL}{set_id}/").status_code == 200
    assert (
        viewer.post(items_url(set_id), {"data": {"question": "x"}}, format="json").status_code
        == 403
    )
    assert (
        viewer.post(f"{URL}{set_id}/versions/", {"version": "1.0.0"}, format="json").status_code
        == 403
    )


def test_outsider_gets_404_everywhere(api, outsider_api, set_id):
    item = api.post(items_url(set_id), {"data": {"question": "x"}}, format="json").json()
    api.post(f"{URL}{set_id}/versions/", {"version": "1.0.0"}, format="json")
    job = api.post(
        f"{URL}{set_id}/imports/", {"file": upload("r.csv", "question\nx\n")}, format="multipart"
    ).json()
    base = f"{URL}{set_id}/"
    gets = [
        base,
        items_url(set_id),
        f"{items_url(set_id)}{item['item_id']}/",
        f"{base}versions/",
        f"{base}versions/1.0.0/",
        f"{base}imports/",
        f"{base}imports/{job['id']}/",
        f"{base}imports/{job['id']}/errors/",
        f"{base}export/?format=csv",
    ]
    for url in gets:
        assert outsider_api.get(url).status_code == 404, url
    writes = [
        ("patch", base, {"name": "mine"}),
        ("delete", base, None),
        ("post", items_url(set_id), {"data": {"question": "y"}}),
        ("patch", f"{items_url(set_id)}{item['item_id']}/", {"tags": ["x"]}),
        ("delete", f"{items_url(set_id)}{item['item_id']}/", None),
        ("post", f"{base}versions/", {"version": "2.0.0"}),
    ]
    for method, url, body in writes:
        assert getattr(outsider_api, method)(url, body, format="json").status_code == 404, url
    imported = outsider_api.post(
        f"{base}imports/", {"file": upload("r.csv", "question\nx\n")}, format="multipart"
    )
    assert imported.status_code == 404
    assert outsider_api.get(URL).json()["results"] == []
    assert EvalSet.objects.get(public_id=set_id).name == "Capitals"
    assert EvalSetItem.objects.filter(version=None).count() == 1


def test_openapi_schema_documents_the_evalset_endpoints(api):
    schema = api.get("/api/schema/?format=json")
    assert schema.status_code == 200
    paths = json.loads(schema.content)["paths"]
    for path in (
        "/api/v1/evalsets/",
        "/api/v1/evalsets/{evalset_id}/items/",
        "/api/v1/evalsets/{evalset_id}/imports/",
        "/api/v1/evalsets/{id}/export/",
    ):
        assert path in paths, sorted(paths)


def test_import_endpoint_takes_an_encoding(api, set_id):
    body = "question,answer\n首都,巴黎\n".encode("gb18030")
    refused = api.post(
        f"{URL}{set_id}/imports/", {"file": upload("zh.csv", body)}, format="multipart"
    )
    assert refused.status_code == 400 and "GB18030" in str(refused.json()["error"]["details"])
    response = api.post(
        f"{URL}{set_id}/imports/",
        {"file": upload("zh.csv", body), "encoding": "gb18030"},
        format="multipart",
    )
    assert response.status_code == 202 and response.json()["encoding"] == "gb18030"
    run_now(EvalSetImport.objects.get(public_id=response.json()["id"]))
    (item,) = api.get(items_url(set_id)).json()["results"]
    assert item["data"]["answer"]["text"] == "巴黎"
