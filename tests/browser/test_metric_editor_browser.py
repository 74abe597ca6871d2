"""Headless Chromium: the metric kind's editor writes the metric's keys into the config that is
saved — choosing BLEU shows its tokenizer (and nothing of other metrics), a metric without a
reference clears it, an option typed is saved — and debug runs the draft on a row. Screenshots
at 1440 and 390 px, in English and Chinese."""

import json

import pytest

from evaluators import services as evaluator_services
from evaluators.models import Evaluator
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_editor(page, live_server, evaluator):
    page.goto(f"{live_server.url}/w/acme/evaluators/{evaluator.public_id}/")
    page.wait_for_selector("#metric-card")
    page.wait_for_load_state("load")


def saved_config(evaluator) -> dict:
    return Evaluator.objects.get(pk=evaluator.pk).draft_config


def test_the_editor_keeps_the_metric_in_the_config(live_server, page, user, workspace):
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Overlap", kind="metric"
    )
    sign_in(page, live_server)
    open_editor(page, live_server, evaluator)
    assert page.input_value("#metric-name") == "exact_match"
    assert not page.locator("#metric-bleu-tokenize").is_visible()

    page.select_option("#metric-name", "bleu")
    assert page.locator("#metric-bleu-tokenize").is_visible()
    assert not page.locator("#metric-pattern").is_visible()
    page.select_option("#metric-bleu-tokenize", "zh")
    config = json.loads(page.input_value("#id_config_json"))
    assert config["metric"] == "bleu" and config["options"] == {"tokenize": "zh"}
    page.click("#save-draft")
    page.wait_for_selector("text=Draft saved")  # the saved page (the card is on both)
    saved = saved_config(evaluator)
    assert saved["metric"] == "bleu" and saved["options"]["tokenize"] == "zh"
    assert saved["reference_variable"] == "reference_output"

    page.select_option("#metric-name", "regex")  # takes no reference: it is cleared
    assert not page.locator("#metric-reference").is_visible()
    page.fill("#metric-pattern", r"\bParis\b")
    config = json.loads(page.input_value("#id_config_json"))
    assert config["reference_variable"] is None
    assert config["options"] == {"pattern": r"\bParis\b"}
    assert not page.console_errors, page.console_errors


def test_debug_runs_the_metric_draft(live_server, page, user, workspace):
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Exact", kind="metric"
    )
    sign_in(page, live_server)
    open_editor(page, live_server, evaluator)
    page.click("#debug-run")
    page.wait_for_selector("#debug-results .badge")
    assert page.locator("#debug-results").inner_text().strip()
    assert not page.console_errors, page.console_errors


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_screenshots_of_the_metric_editor(live_server, page, user, workspace, language):
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="ROUGE-L", kind="metric"
    )
    config = {**evaluator.draft_config, "metric": "rouge_l", "options": {"tokenize": "char"}}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    sign_in(page, live_server)
    page.select_option("#lang-switch", language)
    page.wait_for_function(f"document.documentElement.lang === '{language}'")
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        open_editor(page, live_server, evaluator)
        assert page.locator("#metric-measure").is_visible()
        overflow = page.evaluate("document.documentElement.scrollWidth > window.innerWidth + 1")
        assert not overflow, f"the page scrolls sideways at {width} px"
        screenshot(page, f"metric-editor-{language}-{width}")
    if language == "zh-hans":
        assert "参考变量" in page.inner_text("#metric-card")
    assert not page.console_errors, page.console_errors
