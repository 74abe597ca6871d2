"""The small things a run's page says (issue 28, minor): a code evaluator's cost reads "—"
(the API keeps null), row numbers instead of item ids in titles, no throughput for a run Assay
did not execute, "not enough history" in words."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

GARAK = Path(__file__).resolve().parent.parent / "fixtures" / "garak"


@pytest.fixture
def code_run(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(6), name="QA")
    check = make_code_version(workspace=workspace, user=user, name="Contains")
    return run_inline(workspace=workspace, user=user, version=version, evaluator_version=check)


def page_of(web, run) -> str:
    return web.get(f"/w/acme/experiments/{run.public_id}/").content.decode()


def usage_card(html: str, name: str) -> str:
    return html.split(f'data-usage-evaluator="{name}"')[1].split("</article>")[0]


def test_a_code_evaluator_costs_a_dash_not_no_price_known(web, api, code_run):
    card = usage_card(page_of(web, code_run), "Contains")
    cost = re.search(r'<dd class="cost"[^>]*>(.*?)</dd>', card, re.S).group(1)
    assert cost.strip() == "—"
    assert "no price known" not in card and "$0" not in card
    assert re.search(r'<dd class="tokens">\s*—\s*</dd>', card)
    body = api.get(f"/api/v1/experiments/{code_run.public_id}/").json()
    usage = body["bindings"][0]["summary"]["usage"]
    assert usage["cost"] is None and usage["priced_rows"] == 0  # the API stays null


def two_seconds(run):
    """The run as if it took two seconds (in memory: a throughput to show or hide)."""
    run.started_at = run.finished_at - timedelta(seconds=2)
    return run


def test_no_throughput_for_a_run_assay_did_not_execute(web, api, workspace, user, code_run):
    from experiments import engine
    from experiments.selectors import experiment_progress
    from experiments.services.garak import garak_scan_import

    assert experiment_progress(two_seconds(code_run))["rows_per_s"] == 3.0  # 6 rows in 2 s
    report = (GARAK / "random_detector.report.jsonl").read_bytes()
    (scan,) = garak_scan_import(workspace=workspace, user=user, data=report)
    imported = two_seconds(engine.experiment_run_inline(experiment_id=scan.pk))
    progress = experiment_progress(imported)
    assert progress["results_done"] > 0 and progress["elapsed_s"] == 2.0
    assert progress["rows_per_s"] is None and progress["results_per_s"] is None
    html = page_of(web, imported)
    assert re.search(r'<dd id="throughput">\s*—\s*</dd>', html)
    api_progress = api.get(f"/api/v1/experiments/{imported.public_id}/").json()["progress"]
    assert api_progress["rows_per_s"] is None


def test_no_throughput_for_outputs_a_client_pushed(api, workspace, user, code_run):
    from experiments import services
    from experiments.selectors import experiment_progress

    pushed = services.experiment_create(
        workspace=workspace,
        user=user,
        name="pushed",
        evalset_version=code_run.evalset_version,
        target={"kind": "external"},
        bindings=[{"evaluator_version": code_run.bindings.get().evaluator_version}],
    )
    pushed.results_done, pushed.results_total, pushed.items_total = 6, 6, 6
    pushed.finished_at = code_run.finished_at
    progress = experiment_progress(two_seconds(pushed))
    assert progress["elapsed_s"] == 2.0 and progress["rows_per_s"] is None
