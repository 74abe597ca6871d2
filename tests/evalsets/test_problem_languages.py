"""Cell problems in the reader's language: translated at once in a request (row editor, API),
stored as a message id with its parameters by an import and translated when the report is read
(import page, errors.csv, API); reports stored as text only still show."""

import csv
import html
import io
import time

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from evalsets.importing import import_create
from evalsets.items.cells import CellError, Problem
from evalsets.items.conversation import conversation_content
from evalsets.models import EvalSetImport, EvalSetItem
from tests.evalsets.conftest import jsonl, run_now, upload

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
BAD_URL_EN = "'ftp://flags/x.png' is not a valid http(s) URL"
BAD_URL_ZH = "'ftp://flags/x.png' 不是有效的 http(s) URL"
REQUIRED_EN = "this column is required and the cell is empty"
REQUIRED_ZH = "此列为必填，但单元格为空"


def text(response) -> str:
    return html.unescape(response.content.decode())


def url(name, evalset, **kwargs):
    return reverse(f"evalsets:{name}", kwargs={"ws": "acme", "id": evalset.public_id, **kwargs})


def test_a_problem_is_english_text_and_renders_nested_phrases_in_the_active_language():
    with pytest.raises(CellError) as caught:
        conversation_content([{"role": "user", "content": "hi"}, {"role": 7, "content": "x"}])
    problem = caught.value.problem
    assert isinstance(problem, Problem) and problem.msgid == "message %(number)s: %(problem)s"
    english = "message 2: role must be one of system, user, assistant, tool, got a number"
    assert str(caught.value) == problem == english
    with translation.override("zh-hans"):
        assert problem.render(gettext) == (
            "第 2 条消息：role 必须是 system, user, assistant, tool 之一，实际为 数字"
        )
    stored = Problem.from_json(problem.as_json())
    assert stored == english and stored.params["problem"].params["got"].msgid == "a number"


def test_the_row_editor_shows_cell_problems_in_the_page_language(web, evalset):
    bad = {"col_answer": "A", "col_image": "ftp://flags/x.png"}
    zh = text(web.post(url("row_new", evalset), bad, **ZH))
    assert BAD_URL_ZH in zh and REQUIRED_ZH in zh and BAD_URL_EN not in zh
    en = text(web.post(url("row_new", evalset), bad, **EN))
    assert BAD_URL_EN in en and REQUIRED_EN in en
    assert EvalSetItem.objects.count() == 0


def test_the_api_gives_cell_problems_in_the_accept_language(api, evalset):
    body = {"create": [{"data": {"answer": "A", "image": "ftp://flags/x.png"}}]}
    endpoint = f"/api/v1/evalsets/{evalset.public_id}/items/"
    zh = api.post(endpoint, body, format="json", **ZH)
    assert zh.status_code == 400
    details = zh.json()["error"]["details"]
    assert details["create[0].data.image"] == [BAD_URL_ZH]
    assert details["create[0].data.question"] == [REQUIRED_ZH]
    en = api.post(endpoint, body, format="json", **EN).json()["error"]["details"]
    assert en["create[0].data.image"] == [BAD_URL_EN]


def failed_import(evalset, run=run_now):
    records = [
        {"question": "ok", "answer": "a"},
        {"question": "Flag?", "image": "ftp://flags/x.png"},
        {"question": "Tags?", "tags": [f"t{i}" for i in range(21)]},
    ]
    job = import_create(evalset=evalset, user=None, upload=upload("r.jsonl", jsonl(records)))
    return run(job)


def test_a_stored_report_is_translated_on_the_page_the_csv_and_the_api(web, api, evalset):
    with translation.override("zh-hans"):  # the language the run happens in does not matter
        job = failed_import(evalset)
    job.refresh_from_db()
    assert job.status == "failed" and job.error_count == 2
    stored = job.errors[0]
    assert (
        stored["problem"] == BAD_URL_EN and stored["msgid"] == "%(ref)s is not a valid http(s) URL"
    )
    assert stored["params"] == {"ref": "'ftp://flags/x.png'"}

    page = url("import_job", evalset, job_id=job.public_id)
    zh = text(web.get(page, **ZH))
    assert BAD_URL_ZH in zh and "每行最多 20 个标签，实际为 21 个" in zh and BAD_URL_EN not in zh
    en = text(web.get(page, **EN))
    assert BAD_URL_EN in en and "at most 20 tags per row, got 21" in en

    download = web.get(url("import_errors", evalset, job_id=job.public_id), **ZH)
    rows = list(csv.reader(io.StringIO(text(download))))
    assert rows[0] == ["line", "column", "problem"] and rows[1] == ["2", "image", BAD_URL_ZH]

    status = api.get(f"/api/v1/evalsets/{evalset.public_id}/imports/{job.public_id}/", **ZH)
    assert status.json()["errors"][0] == {"line": 2, "column": "image", "problem": BAD_URL_ZH}
    api_csv = text(
        api.get(f"/api/v1/evalsets/{evalset.public_id}/imports/{job.public_id}/errors/", **EN)
    )
    assert BAD_URL_EN in api_csv


def test_a_report_stored_as_text_only_still_shows(web, api, evalset):
    job = failed_import(evalset)
    old = [{"line": 3, "column": "answer", "problem": "an old problem, stored as text"}]
    broken = [
        {"line": 4, "column": "x", "problem": "kept text", "msgid": "%(gone)s", "params": {"n": 1}}
    ]
    EvalSetImport.objects.filter(pk=job.pk).update(errors=old + broken)
    page = text(web.get(url("import_job", evalset, job_id=job.public_id), **ZH))
    assert "an old problem, stored as text" in page
    download = text(web.get(url("import_errors", evalset, job_id=job.public_id), **ZH))
    assert "an old problem, stored as text" in download
    status = api.get(f"/api/v1/evalsets/{evalset.public_id}/imports/{job.public_id}/", **ZH)
    assert [e["problem"] for e in status.json()["errors"]] == [
        "an old problem, stored as text",
        "kept text",  # parameters that no longer fit their message: the stored text
    ]


@pytest.mark.integration
def test_a_report_written_by_the_worker_reads_in_each_language(celery_worker_inproc, web, evalset):
    def through_the_worker(job):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            job.refresh_from_db()
            if job.is_finished:
                return job
            time.sleep(0.2)
        raise AssertionError(f"import still {job.status}")

    job = failed_import(evalset, run=through_the_worker)
    assert job.status == "failed" and job.errors[0]["msgid"]
    page = url("import_job", evalset, job_id=job.public_id)
    assert BAD_URL_ZH in text(web.get(page, **ZH))
    assert BAD_URL_EN in text(web.get(page, **EN))


# File-level problems (readers.py) and the job's message, written by the worker in English with
# their message ids, read in each reader's language.

RAGGED_EN = "this row has 1 cells but the header has 2; check commas and quoting"
RAGGED_ZH = "这一行有 1 个单元格，但表头有 2 个；请检查逗号和引号"
NOTHING_EN = "Nothing was imported: 1 problem found. Fix it, or import again with “skip bad rows”."
NOTHING_ZH = "没有导入任何内容：发现 1 个问题。请修正后重试，或勾选“跳过错误行”再次导入。"


def api_job(api, evalset, job, **headers):
    return api.get(f"/api/v1/evalsets/{evalset.public_id}/imports/{job.public_id}/", **headers)


def test_a_file_problem_and_the_message_are_stored_with_ids_and_read_in_each_language(
    web, api, evalset
):
    body = "question,answer\nq1,a1\nq2\n"
    with translation.override("zh-hans"):  # the worker's language does not matter
        job = run_now(import_create(evalset=evalset, user=None, upload=upload("r.csv", body)))
    assert job.status == "failed" and job.message == NOTHING_EN
    assert job.message_params == {
        "msgid": "Nothing was imported: %(n)s problem found. Fix it, or import again with "
        "“skip bad rows”.",
        "params": {"n": 1},
        "plural": "Nothing was imported: %(n)s problems found. Fix them, or import again with "
        "“skip bad rows”.",
        "n": 1,
    }
    assert job.errors[0]["problem"] == RAGGED_EN and job.errors[0]["params"] == {
        "got": 1,
        "width": 2,
    }

    page = url("import_job", evalset, job_id=job.public_id)
    zh = text(web.get(page, **ZH))
    assert NOTHING_ZH in zh and RAGGED_ZH in zh and NOTHING_EN not in zh and RAGGED_EN not in zh
    en = text(web.get(page, **EN))
    assert NOTHING_EN in en and RAGGED_EN in en
    download = text(web.get(url("import_errors", evalset, job_id=job.public_id), **ZH))
    assert RAGGED_ZH in download
    zh_api = api_job(api, evalset, job, **ZH).json()
    assert zh_api["message"] == NOTHING_ZH and zh_api["errors"][0]["problem"] == RAGGED_ZH
    en_api = api_job(api, evalset, job, **EN).json()
    assert en_api["message"] == NOTHING_EN and en_api["errors"][0]["problem"] == RAGGED_EN


def test_skipped_rows_take_the_plural_and_a_file_the_worker_cannot_read_says_why(web, api, evalset):
    body = "question,answer\nq1,a1\nq2\nq3,a,b\n"
    job = run_now(
        import_create(evalset=evalset, user=None, upload=upload("r.csv", body), skip_bad_rows=True)
    )
    assert job.status == "completed"
    assert job.message == "2 bad rows were skipped; see the error report."
    zh_message = api_job(api, evalset, job, **ZH).json()["message"]
    assert zh_message == "已跳过 2 个错误行；请查看错误报告。"

    # the file changed under a queued job: its header is refused by the worker
    job = import_create(evalset=evalset, user=None, upload=upload("r.csv", "question\nq\n"))
    default_storage.delete(job.file_path)
    assert default_storage.save(job.file_path, upload("r.csv", "question,question\nq,q\n")) == (
        job.file_path
    )
    job = run_now(job)
    assert job.message == "The file cannot be read: line 1: column 'question' appears twice"
    assert job.message_params["params"]["p"]["msgid"] == "column %(name)r appears twice"
    page = text(web.get(url("import_job", evalset, job_id=job.public_id), **ZH))
    assert "无法读取文件：第 1 行：列 'question' 出现了两次" in page
    assert api_job(api, evalset, job, **ZH).json()["errors"][0]["problem"] == (
        "列 'question' 出现了两次"
    )


def test_a_file_problem_found_at_upload_is_in_the_request_language(api, evalset):
    endpoint = f"/api/v1/evalsets/{evalset.public_id}/imports/"
    bad = "question,question\nq,q\n"
    zh = api.post(endpoint, {"file": upload("r.csv", bad)}, format="multipart", **ZH)
    assert zh.status_code == 400
    assert "第 1 行：列 'question' 出现了两次" in str(zh.json()["error"])
    en = api.post(endpoint, {"file": upload("r.csv", bad)}, format="multipart", **EN)
    assert "line 1: column 'question' appears twice" in str(en.json()["error"])
    latin = api.post(
        endpoint,
        {"file": upload("r.csv", "question\n中文\n".encode("gb18030")), "encoding": "utf-8"},
        format="multipart",
        **ZH,
    )
    assert "该文件不是 UTF-8 文本，看起来是 GB18030。" in str(latin.json()["error"])


def test_an_old_job_without_message_params_still_shows_its_message(web, api, evalset):
    job = failed_import(evalset)
    EvalSetImport.objects.filter(pk=job.pk).update(
        message="An old message, stored as text.", message_params=None
    )
    page = text(web.get(url("import_job", evalset, job_id=job.public_id), **ZH))
    assert "An old message, stored as text." in page
    assert api_job(api, evalset, job, **ZH).json()["message"] == "An old message, stored as text."
    EvalSetImport.objects.filter(pk=job.pk).update(
        message_params={"msgid": "%(gone)s", "params": {"n": 1}}
    )
    assert api_job(api, evalset, job, **ZH).json()["message"] == "An old message, stored as text."
