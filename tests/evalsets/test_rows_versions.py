"""A version from a rows file (`POST /api/v1/evalsets/from-rows/`, `assay run --rows`): the same
rows find the version they made, changed rows make the set's next version, and a bad file is a
400 naming the problem with nothing saved."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evalsets import services
from evalsets.importing import evalset_version_from_rows
from evalsets.models import EvalSet, EvalSetImport, EvalSetItem, EvalSetVersion
from tests.evalsets.conftest import jsonl

pytestmark = pytest.mark.django_db

URL = "/api/v1/evalsets/from-rows/"
ROWS = [{"input": f"say w{i}", "reference_output": f"w{i}"} for i in range(3)]


def csv_text(rows: list[dict]) -> str:
    fields = list(rows[0])
    lines = [",".join(fields)] + [",".join(str(r[f]) for f in fields) for r in rows]
    return "\n".join(lines) + "\n"


def send(api, file_name: str, body: str, **fields):
    upload = SimpleUploadedFile(file_name, body.encode("utf-8"))
    return api.post(URL, {"file": upload, **fields}, format="multipart")


def stored_files(media_root) -> list[str]:
    return sorted(str(p.relative_to(media_root)) for p in media_root.rglob("*") if p.is_file())


def nothing_saved(media_root) -> bool:
    return (
        not EvalSet.objects.exists()
        and not EvalSetVersion.objects.exists()
        and not EvalSetImport.objects.exists()
        and not EvalSetItem.objects.exists()
        and stored_files(media_root) == []
    )


def version_rows(version_id: str) -> list[dict]:
    version = EvalSetVersion.objects.get(public_id=version_id)
    return [
        {k: c["text"] for k, c in item.data.items()}
        for item in EvalSetItem.objects.of_version(version).order_by("position")
    ]


def test_the_same_rows_reuse_their_version_and_changed_rows_make_the_next(api):
    first = send(api, "words.csv", csv_text(ROWS))
    assert first.status_code == 201, first.content
    made = first.json()
    assert (made["evalset_name"], made["version"], made["created"]) == ("words", "1.0.0", True)
    assert made["item_count"] == 3 and made["status"] == "ready"
    assert len(made["content_hash"]) == 64
    assert [c["name"] for c in made["columns"]] == ["input", "reference_output"]
    assert version_rows(made["id"]) == ROWS

    again = send(api, "words.csv", csv_text(ROWS))
    assert again.status_code == 200, again.content
    assert (again.json()["id"], again.json()["created"]) == (made["id"], False)
    assert EvalSetVersion.objects.count() == 1 and EvalSetImport.objects.count() == 1

    # the same rows as JSONL, keys in another order, with the item_id of an export: same rows
    exported = [{"item_id": f"id-{i}", **dict(reversed(r.items()))} for i, r in enumerate(ROWS)]
    as_jsonl = send(api, "words.jsonl", jsonl(exported))
    assert as_jsonl.status_code == 200 and as_jsonl.json()["id"] == made["id"]

    changed = [*ROWS[:2], {"input": "say w9", "reference_output": "w9"}]
    newer = send(api, "words.csv", csv_text(changed))
    assert newer.status_code == 201, newer.content
    assert (newer.json()["version"], newer.json()["evalset"]) == ("1.0.1", made["evalset"])
    assert newer.json()["content_hash"] != made["content_hash"]
    assert version_rows(newer.json()["id"]) == changed
    assert version_rows(made["id"]) == ROWS  # the old version keeps its rows

    back = send(api, "words.csv", csv_text(ROWS))
    assert (back.status_code, back.json()["version"]) == (200, "1.0.0")
    assert EvalSet.objects.count() == 1 and EvalSetVersion.objects.count() == 2


def test_a_named_set_gets_new_fields_as_columns_and_keeps_its_own(api, workspace, user):
    columns = [{"name": "input", "content_type": "Text", "required": True}]
    evalset = services.evalset_create(workspace=workspace, user=user, name="QA", columns=columns)
    services.item_create(evalset=evalset, data={"input": "by hand"})
    services.version_commit(evalset=evalset, user=user, version="2.0.0")

    rows = [{"input": "q1", "topic": "geo"}, {"input": "q2", "topic": "math"}]
    response = send(api, "anything.jsonl", jsonl(rows), name="QA")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["evalset"], body["version"]) == (str(evalset.public_id), "2.0.1")
    assert [c["name"] for c in body["columns"]] == ["input", "topic"]
    assert body["note"] == "Rows of anything.jsonl"
    assert version_rows(body["id"]) == rows


def test_a_field_first_seen_after_the_first_lines_of_a_jsonl_file_is_a_column_too(api):
    rows = [{"input": f"q{i}"} for i in range(250)] + [{"input": "q250", "note": "late"}]
    response = send(api, "late.jsonl", jsonl(rows))
    assert response.status_code == 201, response.content
    assert [c["name"] for c in response.json()["columns"]] == ["input", "note"]
    assert version_rows(response.json()["id"])[-1] == {"input": "q250", "note": "late"}


@pytest.mark.parametrize(
    ("file_name", "body", "problem"),
    [
        ("rows.txt", "input\nq\n", "Cannot tell the format of 'rows.txt'"),
        ("rows.jsonl", '{"input": "a"}\n{"input": \n', "line 2: not valid JSON"),
        ("rows.jsonl", '{"input": "a"}\n[1, 2]\n', "line 2: each line must be a JSON object"),
        ("rows.csv", "input,reference_output\na\n", "line 2: this row has 1 cells"),
        ("rows.csv", "input,reference_output\n", "rows.csv has no rows."),
        ("rows.csv", "", "file: The submitted file is empty."),
        ("rows.jsonl", "{}\n{}\n", "rows.jsonl has no columns"),
        ("rows.csv", "input\n" + "x" * 70_000 + "\n", "line 2, column input: text is 70,000"),
    ],
)
def test_a_bad_file_is_a_400_naming_the_problem_and_saves_nothing(
    api, media_root, file_name, body, problem
):
    response = send(api, file_name, body)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert problem in error["message"], error
    assert nothing_saved(media_root)


def test_too_many_rows_or_bytes_are_refused_by_their_limits(api, settings, media_root):
    settings.ASSAY_COMMIT_INLINE_ROWS = 2
    many = send(api, "rows.csv", csv_text(ROWS))
    assert many.status_code == 400
    assert "rows.csv has more than 2 rows" in many.json()["error"]["message"]
    settings.ASSAY_COMMIT_INLINE_ROWS = 20_000
    settings.ASSAY_EVALSET_MAX_ROWS_FILE_BYTES = 20
    big = send(api, "rows.csv", csv_text(ROWS))
    assert big.status_code == 400
    assert "a rows file is at most 20 bytes" in big.json()["error"]["message"]
    assert nothing_saved(media_root)


def test_a_draft_with_uncommitted_changes_is_not_replaced(api, workspace, user):
    columns = [{"name": "input", "content_type": "Text"}]
    evalset = services.evalset_create(workspace=workspace, user=user, name="QA", columns=columns)
    services.item_create(evalset=evalset, data={"input": "work in progress"})
    response = send(api, "qa.csv", "input\nq\n", name="QA")
    assert response.status_code == 400
    assert "has changes that are not committed" in response.json()["error"]["message"]
    assert not EvalSetVersion.objects.exists()
    assert EvalSetItem.objects.get().data["input"]["text"] == "work in progress"


def test_a_viewer_cannot_make_a_version_from_rows(api_client_for, member, workspace, media_root):
    viewer = api_client_for(workspace, member("victor", "viewer"))
    response = send(viewer, "words.csv", csv_text(ROWS))
    assert response.status_code == 403
    assert nothing_saved(media_root)
    editor = api_client_for(workspace, member("edna", "editor"))
    assert send(editor, "words.csv", csv_text(ROWS)).status_code == 201


def test_the_body_is_strict(api):
    upload = SimpleUploadedFile("w.csv", b"input\nq\n")
    response = api.post(URL, {"file": upload, "versoin": "1.0.0"}, format="multipart")
    assert response.status_code == 400
    assert "versoin" in response.json()["error"]["details"]


def test_the_service_reuses_by_hash_without_importing_again(workspace, user):
    def upload(rows):
        return SimpleUploadedFile("words.jsonl", jsonl(rows).encode("utf-8"))

    first, created = evalset_version_from_rows(workspace=workspace, user=user, upload=upload(ROWS))
    assert created and first.version == "1.0.0" and first.evalset.name == "words"
    blanks = [{**r, "label": None, "tags": ""} for r in ROWS]  # empty cells: the same rows
    same, created = evalset_version_from_rows(workspace=workspace, user=user, upload=upload(blanks))
    assert (same.pk, created) == (first.pk, False)
    assert EvalSetImport.objects.count() == 1
