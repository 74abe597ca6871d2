"""Headless Chromium: build an experiment in the form (keyboard for the choices), launch it, and
watch a real worker take it to completed; then the list."""

import re

import pytest

from experiments.models import Experiment, ExperimentStatus, Result
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = 400


@pytest.fixture
def versions(workspace, user):
    rows = qa_rows(ROWS, error_every=50)
    evalset_version = make_evalset_version(workspace=workspace, user=user, rows=rows)
    return evalset_version, make_code_version(workspace=workspace, user=user)


def test_launch_from_the_form_and_watch_it_complete(
    live_server, page, user, workspace, versions, celery_worker_inproc
):
    evalset_version, evaluator_version = versions
    sign_in(page, live_server)
    page.click("nav.mainnav >> text=Experiments")
    assert "No experiments yet" in page.content()
    page.click("#new-experiment")
    page.wait_for_selector("#experiment-form")
    page.fill("#id_name", "Contains, strict threshold")
    assert page.input_value("#id_evalset_version") == str(evalset_version.public_id)

    # choose the evaluator with the keyboard: the mapping section arrives through htmx
    box = page.locator(f"input[name=evaluator_versions][value='{evaluator_version.public_id}']")
    box.focus()
    page.keyboard.press("Space")
    mapping = f"#map__{evaluator_version.public_id}__reference_output"
    page.wait_for_selector(mapping)
    assert page.input_value(mapping) == "column:reference_output"  # suggested by name
    threshold = f"#policy__{evaluator_version.public_id}__threshold"
    page.fill(threshold, "0.8")
    page.locator(threshold).dispatch_event("change")
    page.wait_for_selector("#review >> text=pass if score ≥ 0.8")
    assert page.inner_text("#review-total") == str(ROWS)
    page.click("summary >> text=Advanced")
    page.fill("#id_chunk_size", "50")
    screenshot(page, "experiment-new")

    # launch with the keyboard too: the whole form works without a pointer
    page.focus("#launch-experiment")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r".*/w/acme/experiments/[0-9a-f-]{36}/$"))
    page.wait_for_selector("text=Experiment launched")
    screenshot(page, "experiment-running")

    # the progress partial polls; when the run ends the page reloads with the final numbers
    page.wait_for_selector("#progress[data-status=completed]", timeout=90_000)
    page.wait_for_selector(".eval-card .summary-line", timeout=30_000)
    experiment = Experiment.objects.get(name="Contains, strict threshold")
    assert experiment.status == ExperimentStatus.COMPLETED
    assert Result.objects.filter(experiment=experiment).count() == ROWS
    assert experiment.bindings.get().policy == {"kind": "threshold", "threshold": 0.8}
    summary = page.inner_text(".eval-card .summary-line")
    assert summary.startswith("200 pass, 192 fail, 8 unknown") and "8 error" in summary
    assert f"{ROWS} of {ROWS} results" in page.inner_text("#progress-text")
    assert page.locator("#status-counts [data-status=error] strong").inner_text() == "8"
    assert page.locator("#results-table tbody tr").count() == 50
    assert page.locator("#retry-button").is_visible()
    screenshot(page, "experiment-completed")

    page.select_option("#results-filters select[name=verdict]", "unknown")
    page.click("#results-filters button[type=submit]")
    page.wait_for_url(re.compile(r".*verdict=unknown.*"))
    assert page.locator("#results-table tbody tr").count() == 8

    page.click("nav.mainnav >> text=Experiments")
    row = page.locator("#experiment-table tbody tr").first
    assert row.get_attribute("data-status") == "completed"
    assert f"{ROWS} of {ROWS} results" in row.inner_text()
    screenshot(page, "experiments-list")
    assert page.console_errors == []
