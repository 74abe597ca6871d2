"""Headless Chromium: point an experiment at the team's own endpoint (a local app over real
HTTP), send a test request from the form, launch, and read the target's cost and latency
cards when a real worker has finished; the secret in the header never reaches the page."""

import re

import pytest

from assay import services as platform
from experiments.models import Experiment, Result, TargetResult
from tests.support.app_server import ScriptedApp
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = 20
SECRET = "app-secret-9f8e7d6c5b4a"


@pytest.fixture
def app():
    with ScriptedApp() as running:
        yield running


def test_an_http_target_is_tested_from_the_form_run_and_its_cost_read(
    live_server, page, user, workspace, app, celery_worker_inproc
):
    make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    check = make_code_version(workspace=workspace, user=user)
    platform.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=SECRET, origins=[app.origin]
    )
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/new/")
    page.fill("#id_name", "Our app, HTTP")
    page.check("input[name=target_kind][value=http]")
    assert page.locator("#target-http").is_visible()
    assert not page.locator("#target-prompt").is_visible()
    page.fill("#id_http_url", app.url)
    page.fill("#id_http_headers", '{"Authorization": "Bearer {{secrets.APP_TOKEN}}"}')
    page.fill("#id_http_body", '{"question": "{{input}}", "reply": "{{actual_output}}"}')
    page.fill("#id_http_output", "answer")
    page.click("#target-http summary")
    page.fill("#id_http_tokens_in", "usage.input_tokens")
    page.fill("#id_http_tokens_out", "usage.output_tokens")
    page.fill("#id_http_cost", "usage.cost")

    # one row through the endpoint: request (secret named, not shown), response, extraction
    page.click("#test-request-http")
    result = page.locator("#target-test-http .test-result")
    result.wait_for()
    assert result.get_attribute("data-status") == "success"
    shown = page.inner_text("#target-test-http")
    assert "Bearer [secret APP_TOKEN]" in shown and SECRET not in page.content()
    assert "The capital is Paris" in shown  # extracted with `answer`
    assert app.requests[-1].headers["Authorization"] == f"Bearer {SECRET}"
    screenshot(page, "experiment-new-http-target")
    tested = app.calls

    box = page.locator(f"input[name=evaluator_versions][value='{check.public_id}']")
    box.check()
    mapping = f"#map__{check.public_id}__actual_output"
    page.wait_for_selector(mapping)
    page.select_option(mapping, "target:actual_output")
    page.wait_for_selector("#review-target >> text=HTTP: your application")
    page.click("summary >> text=Advanced")
    page.fill("#id_repetitions", "1")
    page.click("#launch-experiment")
    page.wait_for_url(re.compile(r".*/w/acme/experiments/[0-9a-f-]{36}/$"))
    page.wait_for_selector("#progress[data-status=completed]", timeout=90_000)
    page.reload()

    experiment = Experiment.objects.get(name="Our app, HTTP")
    assert app.calls == tested + ROWS
    assert TargetResult.objects.filter(experiment=experiment, status="success").count() == ROWS
    assert Result.objects.filter(experiment=experiment, verdict="pass").count() == ROWS // 2
    target = page.locator("#usage-target")
    assert re.fullmatch(r"\d+ / \d+ / \d+ ms", target.locator(".latency").inner_text().strip())
    assert target.locator(".tokens").inner_text().strip() == f"{12 * ROWS} / {3 * ROWS}"
    assert target.locator(".cost").inner_text().strip().startswith("$0.01")  # 20 × $0.0005
    assert "$0.01" in page.inner_text("#total-cost")
    assert SECRET not in page.content()
    assert app.url in page.inner_text("body")  # the target's config is shown
    screenshot(page, "experiment-http-target-completed")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "experiment-http-target-completed-390")
    assert page.console_errors == []
