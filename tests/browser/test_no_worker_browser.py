"""Headless Chromium: a run launched while no worker is live says so on its page, at desktop and
phone widths, and the banner goes once a worker beats (the progress card is polled)."""

import pytest

from assay import services as platform
from experiments import services
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import ARTIFACTS, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_run_with_no_live_worker_shows_a_banner(live_server, page, user, workspace):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(5))
    contains = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="waits for a worker",
        evalset_version=version,
        bindings=[{"evaluator_version": contains}],
        launch=True,
    )
    sign_in(page, live_server)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/w/acme/experiments/{experiment.public_id}/")
    banner = page.locator("#no-worker")
    banner.wait_for()
    assert "No worker is running." in banner.inner_text()
    assert banner.get_attribute("role") == "alert"
    screenshot(page, "experiment-no-worker")
    page.screenshot(path=str(ARTIFACTS / "experiment-no-worker-viewport.png"))
    page.set_viewport_size({"width": 390, "height": 844})
    box = banner.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # no sideways scroll on a phone
    page.screenshot(path=str(ARTIFACTS / "experiment-no-worker-390-viewport.png"))
    screenshot(page, "experiment-no-worker-390")
    platform.worker_beat(hostname="celery@up")  # a worker comes up: the next poll drops it
    banner.wait_for(state="detached", timeout=15000)
    assert page.console_errors == []
