"""Headless Chromium: a garak scan imported from its report.jsonl (written by garak 0.17.1)
is read on the experiment page like any run: a card per detector, the pass rate with its
interval, the per-intent table; screenshots kept."""

from pathlib import Path

import pytest

from experiments import scoring as engine
from experiments.services.garak import garak_scan_import
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPORT = (
    Path(__file__).resolve().parent.parent / "fixtures" / "garak" / "random_detector.report.jsonl"
)


def test_an_imported_garak_scan_has_its_dashboard(live_server, page, user, workspace):
    (run,) = garak_scan_import(workspace=workspace, user=user, data=REPORT.read_bytes())
    engine.experiment_run_inline(experiment_id=run.pk)
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/")
    page.click("#import-garak-link")
    page.wait_for_selector("#garak-import-form")
    page.goto(f"{live_server.url}/w/acme/experiments/{run.public_id}/")
    card = page.locator(".eval-card").first
    card.wait_for()
    assert "garak: always.Random" in card.inner_text()
    assert card.locator(".summary-line").inner_text().startswith("17 pass, 23 fail, 0 unknown")
    assert "95% CI" in card.inner_text()  # 40 outputs: an interval, as garak computed one
    page.click(".eval-card summary >> text=By tag")
    assert "T999test" in card.locator(".tags-table").inner_text()
    screenshot(page, "garak-import-dashboard")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "garak-import-dashboard-390")
    assert page.console_errors == []


def run_the_queued_import() -> None:
    """What the worker does with the import the page queued (claim, then run), here."""
    from experiments.models import GarakImport
    from experiments.services import garak_import_claim, garak_import_run

    job = GarakImport.objects.get(status="queued")
    garak_import_run(job=garak_import_claim(job_id=job.pk))


def test_the_import_form_asks_for_a_threshold_and_partial_reports(
    live_server, page, user, workspace, settings, tmp_path
):
    """A report cut before garak's `completion` entry is refused on the page, naming it; with
    "import as partial" ticked it is queued, and the import's page follows it from 0 of 1
    probe to its experiment, marked partial. Screenshots at 1440 and 390."""
    settings.MEDIA_ROOT = tmp_path
    lines = REPORT.read_text(encoding="utf-8").split("\n")
    cut = [line for line in lines if '"entry_type": "completion"' not in line]
    sign_in(page, live_server)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/w/acme/experiments/import-garak/")
    page.wait_for_selector("#garak-import-form")
    assert page.locator("#id_threshold").is_visible() and page.locator("#id_partial").is_visible()
    assert "at most 64 MB and 50 probes" in page.locator("#garak-import-limits").inner_text()
    payload = {"name": "cut.report.jsonl", "mimeType": "application/json"}
    page.set_input_files("#id_file", {**payload, "buffer": "\n".join(cut).encode()})
    page.click("#garak-import")
    page.wait_for_selector(".errorlist, .field-error, [role=alert]")
    assert "completion" in page.locator("#garak-import-form").inner_text()
    screenshot(page, "garak-import-form-refused")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "garak-import-form-refused-390")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.set_input_files("#id_file", {**payload, "buffer": "\n".join(cut).encode()})
    page.check("#id_partial")
    page.click("#garak-import")
    page.wait_for_url("**/experiments/import-garak/*/")
    card = page.locator("#garak-import-progress")
    assert card.get_attribute("data-status") == "queued"
    assert "0 of 1 probe imported" in card.inner_text()
    assert "Partial: the report stops at line" in card.inner_text()
    screenshot(page, "garak-import-queued")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "garak-import-queued-390")
    page.set_viewport_size({"width": 1440, "height": 900})
    run_the_queued_import()
    page.wait_for_selector("#garak-import-progress[data-status=completed]")  # htmx polled it
    assert "1 of 1 probe imported" in page.locator("#garak-import-count").inner_text()
    screenshot(page, "garak-import-completed")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "garak-import-completed-390")
    page.set_viewport_size({"width": 1440, "height": 900})
    page.click("#garak-import-experiments a")
    page.wait_for_url("**/experiments/*/")
    assert "(partial)" in page.locator("h1").inner_text()
    assert "Partial: the report stops at line" in page.content()
    screenshot(page, "garak-import-partial")
    page.goto(f"{live_server.url}/w/acme/experiments/import-garak/")
    assert "cut.report.jsonl" in page.locator("#garak-imports").inner_text()
    screenshot(page, "garak-import-form-latest")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "garak-import-form-latest-390")
    assert page.console_errors == []
