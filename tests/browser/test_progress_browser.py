"""Headless Chromium: an experiment whose HTTP target is a slow local app. While the target's
calls run, the page's progress card moves — target outputs counted as they land, the calls in
flight shown, the bar above 0 — before any result is scored; in English and Chinese, at
desktop and phone width (screenshots kept)."""

import pytest

from experiments import services
from experiments.models import Experiment
from tests.support.app_server import ScriptedApp
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import screenshot, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = 16
MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


@pytest.fixture
def slow_app():
    with ScriptedApp(latency_s=1.2) as server:
        yield server


def launch(workspace, user, app) -> Experiment:
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    check = make_code_version(workspace=workspace, user=user)
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name="Slow app",
        evalset_version=version,
        bindings=[{"evaluator_version": check, "mapping": MAPPING}],
        target={"kind": "http", "url": app.url, "body": {"q": "{{input}}"}, "output": "answer"},
        concurrency=2,
        launch=True,
    )


def number(page, selector: str, attribute: str) -> int:
    found = page.locator(selector)
    return int(found.get_attribute(attribute)) if found.count() else -1


def test_progress_moves_while_the_target_answers(
    live_server, page, user, workspace, celery_worker_inproc, slow_app
):
    experiment = launch(workspace, user, slow_app)
    sign_in(page, live_server)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/w/acme/experiments/{experiment.public_id}/")
    # the poll (every second) brings outputs in while no row has been scored yet
    done = "+document.querySelector('#target-progress')?.dataset.done"
    wait_until(page, f"{done} > 0 && {done} < {ROWS}", timeout_s=60)
    first = number(page, "#target-progress", "data-done")
    assert 0 < first < ROWS
    assert number(page, "#progress-text", "data-done") == 0
    assert number(page, "#calls-in-flight", "data-calls") > 0
    assert float(page.locator("#progress .progress").get_attribute("aria-valuenow")) > 0
    assert "target outputs/s" in page.inner_text("#throughput")  # not "—" before results
    assert "Target outputs" in page.inner_text("#target-line")
    assert "in flight" in page.inner_text("#calls-in-flight")
    screenshot(page, "progress-target-running-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "progress-target-running-390")
    wait_until(page, f"{done} > {first}", timeout_s=60)  # it goes on moving

    page.set_viewport_size({"width": 1440, "height": 900})
    page.select_option("#lang-switch", "zh-hans")
    page.wait_for_selector("html[lang=zh-hans]")
    page.wait_for_selector("#progress[data-status=running]")
    screenshot(page, "zh-progress-target-running-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "zh-progress-target-running-390")

    page.wait_for_selector("#progress[data-status=completed]", timeout=120_000)
    assert number(page, "#target-progress", "data-done") == ROWS
    assert number(page, "#progress-text", "data-done") == ROWS
    assert page.locator("#calls-in-flight").count() == 0
