"""The import wizard's pages for a Chinese team (issue 28): a name box per field prefilled with
a readable name, the refusal of an import that stores no column, the encoding of a re-upload,
words while nothing is counted yet, and the Columns tab after an import."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evalsets import services
from evalsets.models import EvalSetImport, EvalSetItem
from tests.evalsets.conftest import run_now
from tests.evalsets.test_evalset_pages import url

pytestmark = pytest.mark.django_db

CHINESE = "问题,参考答案,回答\n法国的首都？,巴黎,巴黎\n1+1=?,2,3\n".encode()


@pytest.fixture
def fresh(workspace, user):
    return services.evalset_create(workspace=workspace, user=user, name="客服 FAQ")


def mapping_step(web, evalset, body=CHINESE, name="faq.csv", **fields):
    upload = SimpleUploadedFile(name, body, "text/csv")
    step1 = web.post(url("import", evalset), {"file": upload, **fields})
    assert step1.status_code == 302, step1.content.decode()
    return step1["Location"]


def box_value(page: str, index: int) -> str:
    box = page.split(f'name="name_{index}"')[0].rsplit("<input", 1)[1]
    box += page.split(f'name="name_{index}"')[1].split(">")[0]
    return box.split('value="')[1].split('"')[0]


def test_chinese_headers_get_prefilled_name_boxes_and_import_into_named_columns(web, fresh):
    step2 = mapping_step(web, fresh)
    page = web.get(step2).content.decode()
    assert [box_value(page, i) for i in range(3)] == [
        "input",
        "reference_output",
        "actual_output",
    ]
    assert 'value="__new__" selected' in page.split('name="map_0"')[1].split("</select>")[0]
    form = {f"map_{i}": "__new__" for i in range(3)}
    form |= {f"type_{i}": "Text" for i in range(3)}
    form |= {"name_0": "input", "name_1": "reference_output", "name_2": "app_answer"}
    started = web.post(step2, form)
    assert started.status_code == 302, started.content.decode()
    run_now(EvalSetImport.objects.get())
    fresh.refresh_from_db()
    assert [(c["name"], c["description"]) for c in fresh.columns] == [
        ("input", "问题"),
        ("reference_output", "参考答案"),
        ("app_answer", "回答"),
    ]
    assert EvalSetItem.objects.count() == 2


def test_a_bad_or_repeated_name_is_shown_on_its_box(web, fresh):
    step2 = mapping_step(web, fresh)
    form = {f"map_{i}": "__new__" for i in range(3)}
    form |= {f"type_{i}": "Text" for i in range(3)}
    form |= {"name_0": "问题", "name_1": "answer", "name_2": "answer"}
    refused = web.post(step2, form)
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "is not a valid column name" in page and "Two new columns are called" in page
    assert "new_columns:" not in page
    assert EvalSetImport.objects.get().status == "mapping"


def test_an_import_with_every_field_ignored_is_refused_with_a_message(web, fresh):
    step2 = mapping_step(web, fresh)
    form = {f"map_{i}": "__ignore__" for i in range(3)} | {f"type_{i}": "Text" for i in range(3)}
    refused = web.post(step2, form)
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "no field of the file goes to a column" in page and "mapping:" not in page
    assert EvalSetImport.objects.get().status == "mapping"
    assert EvalSetItem.objects.count() == 0


def test_a_gbk_file_refused_as_utf8_offers_gb18030_on_the_next_upload(web, fresh):
    upload = SimpleUploadedFile("faq.csv", "问题,回答\n法国的首都？,巴黎\n".encode("gb18030"))
    refused = web.post(url("import", fresh), {"file": upload, "encoding": "utf-8"})
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "It looks like GB18030" in page
    select = page.split('name="encoding"')[1].split("</select>")[0]
    assert 'value="gb18030" selected' in select and 'value="utf-8" selected' not in select
    assert 'id="encoding-guess"' in page and "GB18030 (中文 Windows)" in page
    again = SimpleUploadedFile("faq.csv", "问题,回答\n法国的首都？,巴黎\n".encode("gb18030"))
    assert web.post(url("import", fresh), {"file": again, "encoding": "gb18030"}).status_code == 302


def test_progress_says_what_happens_before_rows_are_counted(web, fresh):
    step2 = mapping_step(web, fresh)
    form = {f"map_{i}": "__new__" for i in range(3)} | {f"type_{i}": "Text" for i in range(3)}
    form |= {"name_0": "input", "name_1": "reference_output", "name_2": "actual_output"}
    web.post(step2, form)
    job = EvalSetImport.objects.get()
    progress = url("import_progress", fresh, job_id=job.public_id)
    queued = web.get(progress).content.decode()
    assert "Waiting for a worker" in queued and "of about 0" not in queued
    EvalSetImport.objects.filter(pk=job.pk).update(status="running")
    assert "Reading the file" in web.get(progress).content.decode()


def test_the_columns_tab_is_sent_along_when_the_import_finishes(web, fresh):
    step2 = mapping_step(web, fresh)
    form = {f"map_{i}": "__new__" for i in range(3)} | {f"type_{i}": "Text" for i in range(3)}
    form |= {"name_0": "input", "name_1": "reference_output", "name_2": "actual_output"}
    web.post(step2, form)
    job = EvalSetImport.objects.get()
    progress = url("import_progress", fresh, job_id=job.public_id)
    assert 'id="evalset-tabs"' not in web.get(progress).content.decode()  # not finished yet
    run_now(job)
    done = web.get(progress).content.decode()
    tabs = done.split('id="evalset-tabs"')[1].split("</nav>")[0]
    assert 'hx-swap-oob="true"' in tabs and "Columns (3)" in tabs


def test_the_upload_page_says_how_headers_become_column_names(web, fresh):
    page = web.get(url("import", fresh)).content.decode()
    hint = page.split('id="header-names"')[1].split("</p>")[0]
    assert "问题" in hint and "pinyin" in hint
