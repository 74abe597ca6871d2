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
    from experiments import scoring as engine
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
    pushed.targets_done = 6  # every output pushed
    pushed.finished_at = code_run.finished_at
    progress = experiment_progress(two_seconds(pushed))
    assert progress["elapsed_s"] == 2.0 and progress["rows_per_s"] is None
    assert progress["targets_per_s"] is None  # the client's pushes are not a throughput either


def test_titles_name_rows_by_number_not_by_item_id(web, workspace, user, code_run):
    item = code_run.evalset_version.items.order_by("position")[2]
    uid = str(item.item_id)
    drawer = web.get(f"/w/acme/experiments/{code_run.public_id}/items/{uid}/").content.decode()
    heading = re.search(r"<h2>(.*?)</h2>", drawer, re.S).group(1)
    assert heading == "Row 3"
    assert drawer.index("Row 3") < drawer.index(uid)  # the id only as a detail, under Inputs

    evalset = code_run.evalset_version.evalset
    edit = web.get(f"/w/acme/evalsets/{evalset.public_id}/rows/{uid}/").content.decode()
    title = re.search(r'<h2 id="row-title"[^>]*>(.*?)</h2>', edit, re.S).group(1)
    assert title.strip() == "Edit row 3" and uid not in title
    assert "<title>QA · Edit row 3" in edit

    again = run_inline(
        workspace=workspace,
        user=user,
        version=code_run.evalset_version,
        evaluator_version=code_run.bindings.get().evaluator_version,
        name="again",
    )
    url = f"/w/acme/compare/?baseline={code_run.public_id}&candidates={again.public_id}&filter=all"
    diff = web.get(url).content.decode().split('id="diff-rows"')[1].split("</table>")[0]
    assert ">Row 1</a>" in diff
    shown = re.sub(r"<[^>]+>", " ", diff)  # the text a reader sees (ids stay in the links)
    assert not re.search(r"[0-9a-f]{8}-[0-9a-f]{3}", shown)


def test_one_run_of_an_evaluator_reads_not_enough_history_not_a_chart(web, workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4), name="Set")
    first = make_code_version(workspace=workspace, user=user, name="First")
    other = make_code_version(workspace=workspace, user=user, name="Other")
    run_inline(workspace=workspace, user=user, version=version, evaluator_version=first)
    run = run_inline(workspace=workspace, user=user, version=version, evaluator_version=other)
    html = page_of(web, run)
    trends = html.split('id="trends"')[1].split("</section>")[0]
    assert "trend-chart" not in trends
    short = re.findall(r'<p class="trend-short"[^>]*>(.*?)</p>', trends)
    assert short == ["Not enough history: 1 run of this evaluator here; a trend needs two."] * 2
    card = html.split('class="card eval-card"')[1].split("</article>")[0]
    assert "Not enough history: 0 earlier runs here; relative standing needs three." in card
    assert 'class="badge unknown"' not in card.split("summary-line")[0]  # words, not a pill


def test_the_wide_trend_chart_fills_a_card_and_labels_read_level():
    from experiments.results.trend_chart import WIDE_WIDTH, chart_layout

    runs = [{"name": f"FAQ · stored answers {i}"} for i in range(3)]
    points = [{"run_index": i, "pass_rate": 0.5, "ci": None} for i in range(3)]
    wide = chart_layout(runs=runs, points=points, width=WIDE_WIDTH)
    assert wide["width"] >= 1100 and wide["label_turn"] == 0
    assert [c["label"] for c in wide["columns"]] == [r["name"] for r in runs]  # not cut
    compact = chart_layout(runs=runs, points=points)
    assert compact["width"] <= 480 and compact["min_width"] <= 340  # a phone's card


def test_why_rows_are_unknown_is_one_phrase_joined_in_the_pages_language(web, workspace, user):
    from django.utils import translation

    from experiments.results.dashboard import unknown_why

    with translation.override("en"):
        assert unknown_why({"success": 3, "error": 2, "timeout": 1}) == "2 error, 1 timeout"
        assert unknown_why({"success": 3, "error": 0}) == ""
    with translation.override("zh-hans"):
        assert unknown_why({"error": 2, "timeout": 1}) == "2 错误、1 超时"
    version = make_evalset_version(
        workspace=workspace, user=user, rows=qa_rows(6, error_every=3), name="Errors"
    )
    check = make_code_version(workspace=workspace, user=user, name="Contains")
    run = run_inline(workspace=workspace, user=user, version=version, evaluator_version=check)
    why = re.search(r'<span class="muted unknown-why">(.*?)</span>', page_of(web, run)).group(1)
    assert why == "unknown rows: 2 error"
