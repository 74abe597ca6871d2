"""Headless Chromium: an HTTP-target run whose app failed some rows offers to retry them, says
how many target rows it calls again, and a real worker finishes the retry; a re-score of it says
where its outputs and latency came from."""

import re

import pytest

from experiments import scoring as engine
from experiments import services
from experiments.models import Experiment
from tests.experiments.conftest import wait_for
from tests.experiments.test_http_target_retry import calls, create
from tests.support.app_server import ScriptedApp
from tests.support.fixtures import ARTIFACTS, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def visible(page, name: str) -> None:
    """The viewport only (the full page is kept too): what a reader sees first."""
    page.screenshot(path=str(ARTIFACTS / f"{name}-viewport.png"))


@pytest.fixture
def app():
    with ScriptedApp() as running:
        yield running


def test_the_failed_target_rows_are_retried_from_the_page(
    live_server, page, user, workspace, app, celery_worker_inproc
):
    experiment = create(workspace, user, app)
    wait_for(lambda: Experiment.objects.get(pk=experiment.pk).status == "completed", 60, "the run")
    sign_in(page, live_server)
    url = f"{live_server.url}/w/acme/experiments/{experiment.public_id}/"
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(url)
    button = page.locator("#retry-button")
    assert button.inner_text().strip() == "Retry 3 failed rows (3 target, 0 evaluator)"
    screenshot(page, "experiment-retry-target-rows")
    button.click()
    page.wait_for_url(url)
    message = page.locator(".messages, [role=status], .message").first
    assert "3 target rows are called again, then scored" in page.inner_text("body")
    message.wait_for()
    screenshot(page, "experiment-retry-target-rows-message")
    visible(page, "experiment-retry-target-rows-message")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "experiment-retry-target-rows-message-390")
    visible(page, "experiment-retry-target-rows-message-390")
    wait_for(
        lambda: (
            Experiment.objects.get(pk=experiment.pk).retry_round == 1
            and Experiment.objects.get(pk=experiment.pk).status == "completed"
        ),
        60,
        "the retry",
    )
    assert calls(app)["flaky"] == 2 and calls(app)["ok1"] == 1
    page.reload()
    assert re.search(r"Retry 1 failed row \(1 target, 0 evaluator\)", page.inner_text("body"))
    assert page.console_errors == []


def test_a_rescores_target_card_says_nothing_was_called(live_server, page, user, workspace, app):
    source = engine.experiment_run_inline(experiment_id=create(workspace, user, app).pk)
    binding = source.bindings.order_by("position").first()
    rescore = services.experiment_rescore(
        experiment=source,
        user=user,
        bindings=[{"evaluator_version": binding.evaluator_version, "mapping": binding.mapping}],
    )
    engine.experiment_run_inline(experiment_id=rescore.pk)
    sign_in(page, live_server)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/w/acme/experiments/{rescore.public_id}/")
    card = page.locator("#usage-target")
    text = card.inner_text()
    assert "The outputs and their latency come from the source run, flaky app" in text
    assert "nothing was called (no tokens, no cost)" in text
    assert card.locator("a").get_attribute("href").endswith(f"/{source.public_id}/")
    card.scroll_into_view_if_needed()
    screenshot(page, "experiment-rescore-usage")
    visible(page, "experiment-rescore-usage")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "experiment-rescore-usage-390")
    card.scroll_into_view_if_needed()
    visible(page, "experiment-rescore-usage-390")
    assert page.console_errors == []
