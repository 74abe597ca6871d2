"""Headless Chromium: the external target's help names the set and evaluators chosen on the
form (and follows a change), and the launched run, waiting for its outputs, shows its id and
the commands to copy; in English and Chinese, at desktop and phone width (screenshots kept)."""

import re

import pytest

from experiments.models import Experiment
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_external_help_follows_the_form_and_the_waiting_run_shows_its_commands(
    live_server, page, user, workspace
):
    make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4), name="Capitals QA")
    make_evalset_version(workspace=workspace, user=user, rows=qa_rows(6), name="Support FAQ")
    check = make_code_version(workspace=workspace, user=user, name="Equal")
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/new/")
    page.fill("#id_name", "Pushed by CI")
    page.check("input[name=target_kind][value=external]")
    command = page.locator("#external-command")
    assert "--evaluator '<" in command.inner_text()  # none chosen yet: says so
    faq = page.locator("#id_evalset_version option", has_text="Support FAQ").get_attribute("value")
    page.select_option("#id_evalset_version", faq)
    assert "--evalset 'Support FAQ@1.0.0'" in command.inner_text()
    page.locator(f"input[name=evaluator_versions][value='{check.public_id}']").check()
    assert "--evaluator 'Equal@1.0.0'" in command.inner_text()
    assert "Correctness" not in command.inner_text()
    screenshot(page, "experiment-new-external-help-1440")

    mapping = f"#map__{check.public_id}__actual_output"
    page.wait_for_selector(mapping)
    page.select_option(mapping, "target:actual_output")
    page.click("#launch-experiment")
    page.wait_for_url(re.compile(r".*/w/acme/experiments/[0-9a-f-]{36}/$"))
    experiment = Experiment.objects.get(name="Pushed by CI")
    waiting = page.locator("#external-waiting")
    waiting.wait_for()
    assert page.inner_text("#external-id") == str(experiment.public_id)
    assert f"/api/v1/experiments/{experiment.public_id}/outputs/" in page.inner_text(
        "#external-push"
    )
    assert "--evalset 'Support FAQ@1.0.0'" in page.inner_text("#external-run")
    page.click("[data-copy='#external-push']")
    page.wait_for_selector("[data-copy='#external-push'].copied")
    screenshot(page, "experiment-external-waiting-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "experiment-external-waiting-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    page.set_viewport_size({"width": 1440, "height": 900})
    page.select_option("#lang-switch", "zh-hans")
    page.wait_for_selector("html[lang=zh-hans]")
    waiting.wait_for()
    screenshot(page, "zh-experiment-external-waiting-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "zh-experiment-external-waiting-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
