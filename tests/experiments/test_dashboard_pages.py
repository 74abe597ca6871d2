"""The experiment page's dashboard, row drawer, correction and exports (pages and API)."""

import json

import pytest

from experiments import scoring as engine
from experiments import services
from experiments.models import Result
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(60, error_every=10))
    ev = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="dash",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def page_url(experiment, suffix=""):
    return f"/w/acme/experiments/{experiment.public_id}/{suffix}"


def test_dashboard_card_on_the_experiment_page(web, finished):
    html = web.get(page_url(finished)).content.decode()
    assert "30 pass, 24 fail, 6 unknown" in html
    assert (
        "95% CI" in html
        and 'class="tristate"' in html
        and "Not enough history: 0 earlier runs here; relative standing needs three." in html
    )
    assert "6 error" in html  # unknown rows say why


def test_the_card_says_what_it_counts(web, finished):
    html = web.get(page_url(finished)).content.decode()
    assert "of 54 decided · 6 unknown not counted" in html  # 30 pass + 24 fail; 6 errors


def test_the_by_tag_table_lists_the_largest_groups_first(web, workspace, user):
    from tests.support.factories import run_inline

    rows = qa_rows(7)
    for i, row in enumerate(rows):
        row["tags"] = ["zeta"] if i < 5 else ["alpha"]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name="Tagged")
    check = make_code_version(workspace=workspace, user=user, name="Tag check")
    run = run_inline(workspace=workspace, user=user, version=version, evaluator_version=check)
    html = web.get(page_url(run)).content.decode()
    tags = html.split('class="tags-table"')[1].split("</table>")[0]
    assert tags.index(">zeta<") < tags.index(">alpha<")  # 5 rows before 2, not by name
    assert '<td class="n">5</td>' in tags


def test_drawer_and_correction_update_the_counts(web, finished):
    result = Result.objects.filter(experiment=finished, verdict="fail").first()
    drawer = web.get(page_url(finished, f"results/{result.pk}/")).content.decode()
    assert "The capital is Lyon" in drawer and "missing" in drawer
    bad = web.post(
        page_url(finished, f"results/{result.pk}/correct/"),
        {f"r{result.pk}-verdict": "pass", f"r{result.pk}-note": ""},
    )
    assert bad.status_code == 400 and "Say why" in bad.content.decode()
    response = web.post(
        page_url(finished, f"results/{result.pk}/correct/"),
        {
            f"r{result.pk}-verdict": "pass",
            f"r{result.pk}-note": "Lyon was accepted by the reviewer",
        },
    )
    assert response.status_code == 200 and response["HX-Trigger"] == "result-corrected"
    assert "evaluator said fail" in response.content.decode()
    dashboard = web.get(page_url(finished, "dashboard/")).content.decode()
    assert "31 pass, 23 fail, 6 unknown" in dashboard and "1 human correction" in dashboard


def test_exports_from_the_page(web, finished):
    response = web.get(page_url(finished, "export/report/"))
    lines = [json.loads(line) for line in b"".join(response.streaming_content).splitlines()]
    assert lines[2]["entry_type"] == "eval" and lines[-2]["entry_type"] == "probe_summary"
    assert "attachment" in response["Content-Disposition"]
    csv_response = web.get(page_url(finished, "export/csv/"))
    assert b"".join(csv_response.streaming_content).count(b"\n") == 61
    assert web.get(page_url(finished, "export/nope/")).status_code == 404


def test_api_correct_and_export(api, finished):
    result = Result.objects.filter(experiment=finished, verdict="pass").first()
    base = f"/api/v1/experiments/{finished.public_id}/"
    corrected = api.post(
        f"{base}results/{result.pk}/correct",
        {"verdict": "fail", "note": "hallucinated"},
        format="json",
    )
    assert corrected.status_code == 200, corrected.content
    assert finished.aggregates.get().summary["fails"] == 25
    bad = api.post(f"{base}results/{result.pk}/correct", {"verdict": "maybe"}, format="json")
    assert bad.status_code == 400 and "verdict" in bad.json()["error"]["details"]
    export = api.get(f"{base}export?format=hitlog")
    hits = b"".join(export.streaming_content).splitlines()
    assert len(hits) == 25
    assert api.get(f"{base}export?format=xml").status_code == 400


def test_outsider_404(outsider_api, client, outsider, finished):
    result = Result.objects.filter(experiment=finished).first()
    base = f"/api/v1/experiments/{finished.public_id}/"
    assert (
        outsider_api.post(
            f"{base}results/{result.pk}/correct", {"verdict": "pass", "note": "x"}, format="json"
        ).status_code
        == 404
    )
    assert outsider_api.get(f"{base}export?format=csv").status_code == 404
    client.force_login(outsider)
    for suffix in ("dashboard/", f"results/{result.pk}/", "export/csv/"):
        assert client.get(page_url(finished, suffix)).status_code == 404
    assert (
        client.post(
            page_url(finished, f"results/{result.pk}/correct/"), {"verdict": "pass", "note": "x"}
        ).status_code
        == 404
    )
    result.refresh_from_db()
    assert result.human_verdict == ""
