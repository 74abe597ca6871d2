"""CSV exports for Excel (issue 28): `excel=1` starts the file with a UTF-8 byte order mark, so
Excel on Chinese Windows reads UTF-8 instead of GBK; the default file stays byte for byte what
scripts read. The evalset draft and versions, from the page and the API."""

import pytest

from evalsets import services
from evalsets.importing import import_create
from tests.evalsets.conftest import run_now, upload
from tests.evalsets.test_evalset_pages import url

pytestmark = pytest.mark.django_db

BOM = b"\xef\xbb\xbf"


def body(response) -> bytes:
    return b"".join(response.streaming_content)


@pytest.fixture
def chinese_set(workspace, user):
    evalset = services.evalset_create(
        workspace=workspace,
        user=user,
        name="客服",
        columns=[{"name": "input", "content_type": "Text"}],
    )
    services.item_create(evalset=evalset, data={"input": "法国的首都？"}, tags=["地理"])
    return evalset


def test_the_evalset_page_export_for_excel_has_a_bom_and_the_default_has_none(web, chinese_set):
    plain = web.get(url("export", chinese_set) + "?format=csv&version=draft")
    excel = web.get(url("export", chinese_set) + "?format=csv&version=draft&excel=1")
    plain_bytes, excel_bytes = body(plain), body(excel)
    assert plain_bytes.startswith(b"item_id,input,tags") and not plain_bytes.startswith(BOM)
    assert excel_bytes == BOM + plain_bytes
    assert "法国的首都？" in excel_bytes.decode("utf-8-sig")
    assert excel["Content-Disposition"].endswith('-draft-excel.csv"')
    jsonl = web.get(url("export", chinese_set) + "?format=jsonl&version=draft&excel=1")
    assert not body(jsonl).startswith(BOM)  # JSONL is never for Excel


def test_an_excel_export_imports_back(web, chinese_set):
    exported = body(web.get(url("export", chinese_set) + "?format=csv&version=draft&excel=1"))
    job = run_now(import_create(evalset=chinese_set, user=None, upload=upload("x.csv", exported)))
    assert job.status == "completed", job.message
    texts = [i.data["input"]["text"] for i in chinese_set.items.filter(version=None)]
    assert texts == ["法国的首都？", "法国的首都？"]


def test_the_api_export_for_excel(api, chinese_set):
    base = f"/api/v1/evalsets/{chinese_set.public_id}/export/?format=csv"
    assert not body(api.get(base)).startswith(BOM)
    assert body(api.get(base + "&excel=true")).startswith(BOM + b"item_id,input")


def test_the_set_pages_offer_the_excel_export(web, chinese_set):
    services.version_commit(evalset=chinese_set, user=None, version="1.0.0")
    rows = web.get(url("detail", chinese_set)).content.decode()
    assert 'id="export-excel"' in rows and "excel=1" in rows
    versions = web.get(url("versions", chinese_set)).content.decode()
    assert 'id="export-draft-excel"' in versions
    assert 'class="export-excel"' in versions and "excel=1&amp;version=1.0.0" in versions
