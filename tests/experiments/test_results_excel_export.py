"""results.csv for Excel (issue 28): `excel=1` starts it with a UTF-8 byte order mark, so Excel
on Chinese Windows reads UTF-8; the default file is unchanged (page and API)."""

import pytest

from experiments import scoring as engine
from experiments import services
from tests.support.factories import make_code_version, make_evalset_version

pytestmark = pytest.mark.django_db

BOM = b"\xef\xbb\xbf"
ROW = {"input": "法国的首都？", "actual_output": "巴黎", "reference_output": "巴黎"}


def body(response) -> bytes:
    return b"".join(response.streaming_content)


@pytest.fixture
def finished(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=[ROW])
    ev = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="中文",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def test_results_csv_for_excel_from_the_page_and_the_api(web, api, finished):
    page = f"/w/acme/experiments/{finished.public_id}/export/csv/"
    plain, excel = body(web.get(page)), web.get(page + "?excel=1")
    assert plain.startswith(b"item_id,") and body(excel) == BOM + plain
    assert excel["Content-Disposition"].endswith('-results-excel.csv"')
    api_url = f"/api/v1/experiments/{finished.public_id}/export?format=csv"
    assert body(api.get(api_url)) == plain
    assert body(api.get(api_url + "&excel=1")) == BOM + plain
    report = body(web.get(f"/w/acme/experiments/{finished.public_id}/export/jsonl/?excel=1"))
    assert not report.startswith(BOM)
    html = web.get(f"/w/acme/experiments/{finished.public_id}/").content.decode()
    assert 'id="export-excel"' in html and "export/csv/?excel=1" in html


def test_pairs_csv_for_excel_from_the_page_and_the_api(web, api, pw_finished):
    run = pw_finished("X", "Y")
    page = f"/w/acme/pairwise/{run.public_id}/export/csv/"
    plain, excel = body(web.get(page)), web.get(page + "?excel=1")
    assert plain.startswith(b"item_id,") and body(excel) == BOM + plain
    assert excel["Content-Disposition"].endswith('-pairs-excel.csv"')
    api_url = f"/api/v1/pairwise-runs/{run.public_id}/export/?format=csv"
    assert body(api.get(api_url)) == plain and body(api.get(api_url + "&excel=1")) == BOM + plain
    html = web.get(f"/w/acme/pairwise/{run.public_id}/").content.decode()
    assert 'id="export-excel"' in html


def test_the_comparison_csv_for_excel(web, finished, workspace, user):
    other = services.experiment_create(
        workspace=workspace,
        user=user,
        name="候选",
        evalset_version=finished.evalset_version,
        bindings=[{"evaluator_version": finished.bindings.get().evaluator_version}],
    )
    services.experiment_launch(experiment=other)
    engine.experiment_run_inline(experiment_id=other.pk)
    query = f"baseline={finished.public_id}&candidates={other.public_id}"
    plain = web.get(f"/w/acme/compare/export/?{query}&format=csv")
    excel = web.get(f"/w/acme/compare/export/?{query}&format=csv&excel=1")
    assert plain.content.startswith(b"candidate,") and excel.content == BOM + plain.content
    assert excel["Content-Disposition"].endswith('comparison-excel.csv"')
    page = web.get(f"/w/acme/compare/?{query}").content.decode()
    assert 'class="export-excel"' in page and "excel=1" in page
