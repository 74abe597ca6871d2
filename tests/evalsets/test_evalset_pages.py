"""Evalset pages: list, wizard, rows table, row editor, columns, versions, media, outsiders."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evalsets import selectors, services
from evalsets.demo import png_bytes
from evalsets.models import EvalSetImport, EvalSetItem, EvalSetVersion
from tests.evalsets.conftest import run_now

pytestmark = pytest.mark.django_db


def url(name, evalset=None, **kwargs):
    if evalset is not None:
        kwargs["id"] = evalset.public_id
    return reverse(f"evalsets:{name}", kwargs={"ws": "acme", **kwargs})


def png_upload(name="flag.png"):
    return SimpleUploadedFile(name, png_bytes(3, 3, lambda x, y: (0, 0, 255)), "image/png")


def test_list_and_create(web, evalset):
    page = web.get(url("list"))
    assert page.status_code == 200 and "Capitals" in page.content.decode()
    created = web.post(url("new"), {"name": "Fresh", "description": "", "tags": "a, b"})
    assert created.status_code == 302 and created["Location"].endswith("/import/")
    duplicate = web.post(url("new"), {"name": "Fresh"})
    assert duplicate.status_code == 200 and "already exists" in duplicate.content.decode()


def test_import_wizard_upload_map_progress(web, evalset, stored_image):
    body = (
        "question,picture,notes\n"
        f"Which flag?,{stored_image['image']['uri']},x\n"
        "Remote,https://img.test/a.png,y\n"
    )
    upload = SimpleUploadedFile("rows.csv", body.encode(), "text/csv")
    step1 = web.post(url("import", evalset), {"file": upload, "format": ""})
    assert step1.status_code == 302
    job = EvalSetImport.objects.get()
    assert job.status == "mapping" and job.fields == ["question", "picture", "notes"]
    mapping_page = web.get(step1["Location"]).content.decode()
    assert "mapping-table" in mapping_page and "<code>picture</code>" in mapping_page
    # picture → the Image column, notes → ignored
    step2 = web.post(
        step1["Location"],
        {
            "map_0": "question",
            "map_1": "image",
            "type_1": "Text",
            "map_2": "__ignore__",
            "type_0": "Text",
            "type_2": "Text",
        },
    )
    assert step2.status_code == 302
    job.refresh_from_db()
    assert job.status == "queued" and job.mapping == {
        "question": "question",
        "picture": "image",
        "notes": "",
    }
    running = web.get(url("import_progress", evalset, job_id=job.public_id)).content.decode()
    assert 'hx-trigger="every 1s"' in running
    run_now(job)
    done = web.get(url("import_progress", evalset, job_id=job.public_id)).content.decode()
    assert "hx-trigger" not in done and 'data-status="completed"' in done and "see-rows" in done
    rows = web.get(url("detail", evalset)).content.decode()
    assert f'src="/w/acme/evalsets/media/{stored_image["image"]["uri"]}"' in rows
    assert 'src="https://img.test/a.png"' in rows


def test_wizard_mapping_errors_and_failed_report(web, evalset):
    upload = SimpleUploadedFile("rows.jsonl", b'{"question": "a", "answer": "b"}\n{bad\n')
    step1 = web.post(url("import", evalset), {"file": upload})
    job = EvalSetImport.objects.get()
    refused = web.post(
        step1["Location"],
        {"map_0": "answer", "map_1": "answer", "type_0": "Text", "type_1": "Text"},
    )
    assert refused.status_code == 400
    assert "more than one field maps to" in refused.content.decode()
    web.post(
        step1["Location"],
        {"map_0": "question", "map_1": "answer", "type_0": "Text", "type_1": "Text"},
    )
    run_now(job)
    page = web.get(step1["Location"]).content.decode()
    assert "Nothing was imported" in page and "error-report" in page
    report = web.get(url("import_errors", evalset, job_id=job.public_id))
    assert report.content.decode().splitlines()[1].startswith("2,,not valid JSON")
    assert EvalSetItem.objects.count() == 0


def test_upload_step_refuses_unreadable_files(web, evalset):
    upload = SimpleUploadedFile("rows.csv", "question\n".encode("utf-16"))
    page = web.post(url("import", evalset), {"file": upload})
    assert page.status_code == 400 and "The file is not UTF-8 text" in page.content.decode()
    assert 'name="encoding"' in page.content.decode()  # the choice is on the form
    assert EvalSetImport.objects.count() == 0


def test_rows_table_filters_and_escapes(web, evalset):
    services.items_bulk(
        evalset=evalset,
        create=[
            {"data": {"question": "<script>alert(1)</script>"}, "tags": ["xss"]},
            {"data": {"question": "Capital of Peru?"}, "tags": ["americas"]},
        ],
    )
    page = web.get(url("detail", evalset)).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    by_tag = web.get(url("detail", evalset) + "?tag=americas").content.decode()
    assert "Capital of Peru?" in by_tag and "alert(1)" not in by_tag
    by_text = web.get(url("detail", evalset) + "?q=peru").content.decode()
    assert "Capital of Peru?" in by_text and "alert(1)" not in by_text


def test_add_edit_delete_row_with_an_uploaded_image(web, evalset):
    added = web.post(
        url("row_new", evalset),
        {"col_question": "Which flag?", "file_image": png_upload(), "tags": "flags, easy"},
    )
    assert added.status_code == 302
    item = EvalSetItem.objects.get()
    assert item.data["image"]["image"]["uri"].endswith("flag.png") and item.tags == [
        "easy",
        "flags",
    ]
    form = web.get(url("row_edit", evalset, item_id=item.item_id)).content.decode()
    assert "Which flag?" in form
    edited = web.post(
        url("row_edit", evalset, item_id=item.item_id),
        {
            "col_question": "Whose flag?",
            "col_image": item.data["image"]["image"]["uri"],
            "human_verdict": "pass",
        },
    )
    assert edited.status_code == 302
    item.refresh_from_db()
    assert item.data["question"]["text"] == "Whose flag?" and item.human_verdict == "pass"
    web.post(url("row_delete", evalset, item_id=item.item_id))
    assert selectors.draft_count(evalset) == 0


def test_row_form_refuses_a_fake_image_and_a_missing_required_cell(web, evalset):
    fake = SimpleUploadedFile("cat.png", b"MZ this is an executable", "image/png")
    page = web.post(url("row_new", evalset), {"col_question": "Q", "file_image": fake})
    assert page.status_code == 200 and "not an image or audio file" in page.content.decode()
    empty = web.post(url("row_new", evalset), {"col_answer": "A"})
    assert "this column is required" in empty.content.decode()
    assert EvalSetItem.objects.count() == 0


def test_column_editor_renames_and_refuses_unsafe_type_change(web, evalset):
    services.item_create(evalset=evalset, data={"question": "Q", "answer": "A"})
    form = {
        "set-name": "Capitals",
        "set-description": "",
        "set-tags": "",
        "col-TOTAL_FORMS": "3",
        "col-INITIAL_FORMS": "3",
        "col-0-old_name": "question",
        "col-0-name": "prompt",
        "col-0-content_type": "Text",
        "col-0-required": "on",
        "col-1-old_name": "image",
        "col-1-name": "image",
        "col-1-content_type": "Image",
        "col-1-remove": "on",
        "col-2-old_name": "answer",
        "col-2-name": "answer",
        "col-2-content_type": "Text",
    }
    assert web.post(url("columns", evalset), form).status_code == 302
    evalset.refresh_from_db()
    assert evalset.column_names == ["prompt", "answer"]
    assert EvalSetItem.objects.get().data["prompt"]["text"] == "Q"
    retype = {
        **form,
        "col-TOTAL_FORMS": "2",
        "col-INITIAL_FORMS": "2",
        "col-0-old_name": "prompt",
        "col-0-name": "prompt",
        "col-1-old_name": "answer",
        "col-1-name": "answer",
        "col-1-content_type": "Image",
        "col-1-remove": "",
    }
    page = web.post(url("columns", evalset), retype)
    assert (
        page.status_code == 200 and "clear them before changing its type" in page.content.decode()
    )
    evalset.refresh_from_db()
    assert evalset.columns[1]["content_type"] == "Text"


def test_commit_versions_page_and_export(web, evalset):
    services.item_create(evalset=evalset, data={"question": "Q1"})
    page = web.get(url("versions", evalset)).content.decode()
    assert 'value="1.0.0"' in page
    committed = web.post(url("commit", evalset), {"version": "1.0.0", "note": "first"})
    assert committed.status_code == 302
    again = web.post(url("commit", evalset), {"version": "1.0.0"})
    assert again.status_code == 400 and "already exists" in again.content.decode()
    assert EvalSetVersion.objects.count() == 1
    services.item_create(evalset=evalset, data={"question": "Q2"})
    v1 = web.get(url("detail", evalset) + "?version=1.0.0").content.decode()
    assert "Q1" in v1 and "Q2" not in v1 and "add-row" not in v1
    export = web.get(url("export", evalset) + "?format=csv&version=1.0.0")
    assert export["Content-Disposition"] == 'attachment; filename="capitals-1.0.0.csv"'
    assert b"".join(export.streaming_content).decode().count("\n") == 2


def test_media_view_serves_members_only(web, client, outsider, evalset, stored_image):
    uri = stored_image["image"]["uri"]
    served = web.get(url("media", path=uri))
    assert served.status_code == 200 and served["Content-Type"] == "image/png"
    assert b"".join(served.streaming_content).startswith(b"\x89PNG")
    assert web.get(url("media", path=uri.replace("/image/", "/imports/"))).status_code == 404
    assert web.get(url("media", path="evalsets/../../etc/passwd")).status_code == 404
    client.force_login(outsider)
    assert client.get(url("media", path=uri)).status_code == 404
    other = reverse("evalsets:media", kwargs={"ws": "other", "path": uri})
    assert client.get(other).status_code == 404


def test_viewer_can_read_but_not_change(client, member, evalset):
    client.force_login(member("victor", "viewer"))
    assert client.get(url("detail", evalset)).status_code == 200
    assert client.post(url("row_new", evalset), {"col_question": "x"}).status_code == 403
    assert client.post(url("commit", evalset), {"version": "1.0.0"}).status_code == 403


def test_outsider_gets_404_on_every_page(client, outsider, evalset):
    item = services.item_create(evalset=evalset, data={"question": "Q"})
    services.version_commit(evalset=evalset, user=None, version="1.0.0")
    from evalsets.importing import import_create
    from tests.evalsets.conftest import upload

    job = import_create(evalset=evalset, user=None, upload=upload("a.csv", "question\nx\n"))
    client.force_login(outsider)
    ids = {"item_id": item.item_id}
    gets = [
        url("list"),
        url("new"),
        url("detail", evalset),
        url("columns", evalset),
        url("row_new", evalset),
        url("row_edit", evalset, **ids),
        url("versions", evalset),
        url("export", evalset),
        url("import", evalset),
        url("import_job", evalset, job_id=job.public_id),
        url("import_progress", evalset, job_id=job.public_id),
        url("import_errors", evalset, job_id=job.public_id),
    ]
    for page in gets:
        assert client.get(page).status_code == 404, page
    posts = [
        url("row_delete", evalset, **ids),
        url("commit", evalset),
        url("delete", evalset),
        url("columns", evalset),
        url("row_new", evalset),
        url("import", evalset),
    ]
    for page in posts:
        assert client.post(page, {"version": "2.0.0"}).status_code == 404, page
    # and through the outsider's own workspace, Acme's set is not found either
    own = reverse("evalsets:detail", kwargs={"ws": "other", "id": evalset.public_id})
    assert client.get(own).status_code == 404
    assert EvalSetVersion.objects.count() == 1 and selectors.draft_count(evalset) == 1


def test_fields_that_match_no_column_default_to_ignore_and_an_unmapped_import_is_refused(
    web, evalset
):
    upload = SimpleUploadedFile("rows.csv", b"colour,size\nred,big\n")
    step1 = web.post(url("import", evalset), {"file": upload})
    form = web.get(step1["Location"]).content.decode()
    # neither field matches a column: both start on Ignore, never on "New column"
    for index in (0, 1):
        select = form.split(f'name="map_{index}"')[1].split("</select>")[0]
        assert 'value="__ignore__" selected' in select and 'value="__new__" selected' not in select
    refused = web.post(
        step1["Location"],
        {"map_0": "__ignore__", "map_1": "__ignore__", "type_0": "Text", "type_1": "Text"},
    )
    assert refused.status_code == 400
    assert "no field of the file maps to a column of the set" in refused.content.decode()
    assert EvalSetItem.objects.count() == 0


def test_the_import_page_states_its_limits_and_counts_rows_in_words(web, evalset):
    page = web.get(url("import", evalset)).content.decode()
    limits = page.split('id="import-limits"')[1].split("</p>")[0]
    assert "512 MB" in limits and "64 KB" in limits and "1000 fields" in limits
    upload = SimpleUploadedFile("rows.csv", b"question,answer\nq,a\n")
    step1 = web.post(url("import", evalset), {"file": upload})
    web.post(
        step1["Location"],
        {"map_0": "question", "map_1": "answer", "type_0": "Text", "type_1": "Text"},
    )
    job = EvalSetImport.objects.get()
    run_now(job)
    progress = web.get(url("import_progress", evalset, job_id=job.public_id)).content.decode()
    assert "1 row read" in progress and "1 row imported" in progress
    assert "of about" not in progress


def test_a_failed_import_can_run_again_skipping_its_bad_rows(web, evalset):
    upload = SimpleUploadedFile("rows.jsonl", b'{"question": "a", "answer": "b"}\n{bad\n')
    step1 = web.post(url("import", evalset), {"file": upload})
    web.post(
        step1["Location"],
        {"map_0": "question", "map_1": "answer", "type_0": "Text", "type_1": "Text"},
    )
    failed = EvalSetImport.objects.get()
    run_now(failed)
    page = web.get(step1["Location"]).content.decode()
    assert 'id="retry-skipping"' in page
    response = web.post(url("import_retry", evalset, job_id=failed.public_id))
    retry = EvalSetImport.objects.exclude(pk=failed.pk).get()
    assert response.status_code == 302 and str(retry.public_id) in response["Location"]
    assert retry.skip_bad_rows and retry.file_path == failed.file_path
    run_now(retry)
    retry.refresh_from_db()
    assert retry.status == "completed" and retry.rows_imported == 1 and retry.error_count == 1
    assert EvalSetItem.objects.filter(evalset=evalset, version__isnull=True).count() == 1
    again = web.post(url("import_retry", evalset, job_id=retry.public_id), follow=True)
    assert "Only an import that failed on bad rows can be retried" in again.content.decode()


def test_the_mapping_step_previews_the_first_rows_as_they_will_be_stored(web, evalset):
    rows = "".join(f"q{i},a{i},x\n" for i in range(8))
    upload = SimpleUploadedFile("rows.csv", ("question,answer,extra\n" + rows).encode())
    step1 = web.post(url("import", evalset), {"file": upload})
    page = web.get(step1["Location"]).content.decode()
    preview = page.split('id="import-preview"')[1].split("</section>")[0]
    assert "The first 5 rows as they will be stored" in preview
    assert preview.count("<tr data-line=") == 5 and "q0" in preview and "q5" not in preview
    assert 'class="error"' not in preview  # the unknown field starts ignored, as in the form
    # previewing another mapping stores nothing and shows what it would store
    swapped = web.post(
        step1["Location"],
        {
            "map_0": "answer",
            "map_1": "__ignore__",
            "map_2": "__ignore__",
            "type_0": "Text",
            "type_1": "Text",
            "type_2": "Text",
            "step": "preview",
        },
    ).content.decode()
    shown = swapped.split('id="import-preview"')[1].split("</section>")[0]
    assert "<th>answer</th>" in shown and "<th>question</th>" not in shown and "q0" in shown
    assert EvalSetImport.objects.get().status == "mapping" and EvalSetItem.objects.count() == 0
