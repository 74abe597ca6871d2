"""Headless Chromium: debug a code evaluator and an LLM judge on two turns each, keep a test
case, and see it run when submitting."""

import pytest

from assay import services as platform
from tests.support.fixtures import open_dialog, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    print("checking", output)
    if output == "boom":
        return 1 / 0
    return EvalOutput(score=1.0 if output == "Paris" else 0.0, reason="compared " + output)
"""


def new_evaluator(page, source_value, name):
    page.click("text=New evaluator")
    page.check(f"input[name=source][value={source_value}]")
    page.fill("#id_name", name)
    page.click("text=Create evaluator")
    page.wait_for_selector("text=Evaluator created")


def fill_turn(page, values):
    for variable, value in values.items():
        page.fill(f"#turn-var-{variable}", value)


def test_debug_code_and_llm_evaluators(live_server, page, user, workspace, llm_server):
    platform.provider_create(
        workspace=workspace,
        name="Local judge",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key="sk-test-assay-0123456789",
        structured_mode="json_object",
    )
    sign_in(page, live_server)

    # --- code evaluator: two turns, a score with stdout and an error with its line number
    new_evaluator(page, "code", "Capital check")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("(src) => document.querySelector('.CodeMirror').CodeMirror.setValue(src)", CODE)
    page.click("#save-draft")
    page.wait_for_selector("text=Draft saved")
    fill_turn(page, {"actual_output": "Paris", "reference_output": "Paris"})
    page.click("#add-turn")
    fill_turn(page, {"actual_output": "boom"})
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(".debug-result >> nth=1")
    first, second = page.locator(".debug-result").all()
    assert "compared Paris" in first.locator(".reason").inner_text()
    assert "checking Paris" in first.locator(".stdout").inner_text()
    assert first.locator(".score").inner_text() == "1.00"
    assert "line 5" in second.locator(".error-pane").inner_text()
    assert "checking boom" in second.locator(".stdout").inner_text()
    screenshot(page, "debug-code")

    page.click("#turn-tabs >> text=Turn 1")
    page.click("#save-test summary")
    page.fill("#test-name", "Paris passes")
    page.select_option("#test-expected", "pass")
    page.click("#test-save")
    page.wait_for_selector("#tests-table >> text=Paris passes")
    open_dialog(page, "#open-submit", "#submit-dialog")
    page.wait_for_selector("#submit-tests >> text=test cases agree")
    assert "1 / 1" in page.locator("#submit-tests").inner_text()
    screenshot(page, "debug-submit-dialog")
    page.click("#confirm-submit")
    page.wait_for_selector("text=Tests: 1 of 1 agree")

    # --- LLM judge against the local OpenAI-compatible server
    page.click("nav.mainnav >> text=Evaluators")
    new_evaluator(page, "llm", "Capital judge")
    page.select_option("#model-provider", label="Local judge")
    fill_turn(page, {"input": "Capital of France? [[script:score:0.9]]", "output": "Paris"})
    page.click("#add-turn")
    fill_turn(page, {"input": "Capital of Spain? [[script:bad_json]]", "output": "Madrid"})
    page.click("#debug-run")
    page.wait_for_selector(".debug-result >> nth=1")
    first, second = page.locator(".debug-result").all()
    assert first.locator(".score").inner_text() == "0.90"
    assert "Scored 0.9" in first.locator(".reason").inner_text()
    assert second.get_attribute("data-status") == "error"
    assert second.locator(".error-pane").inner_text()
    first.locator("summary", has_text="Rendered prompt").click()
    assert "Capital of France" in first.locator(".rendered").inner_text()
    screenshot(page, "debug-llm")
    assert page.console_errors == []


def test_pick_rows_from_an_evalset_into_the_debug_panel(live_server, page, user, workspace):
    from evaluators import services
    from tests.support.factories import make_evalset_version, qa_rows

    make_evalset_version(workspace=workspace, user=user, rows=qa_rows(12), name="Capitals")
    evaluator = services.evaluator_create(
        workspace=workspace, user=user, name="Pick", kind="code", language="python"
    )
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/evaluators/{evaluator.public_id}/")
    page.click("#pick-rows summary")
    page.wait_for_selector("#pick-evalset option", state="attached")
    page.select_option("#pick-version", "1.0.0")
    page.fill("#pick-limit", "4")
    page.click("#pick-load")
    page.wait_for_selector("#turn-tabs >> text=Turn 4")
    assert page.input_value("#turn-var-actual_output") == "The capital is Paris"
    page.click("#debug-run")
    page.wait_for_selector(".debug-result >> nth=3")
    verdicts = page.locator(
        ".debug-result .badge.pass, .debug-result .badge.fail"
    ).all_inner_texts()
    # the blank evaluator checks output == reference exactly: every sentence-long answer fails
    assert verdicts == ["fail", "fail", "fail", "fail"]
    assert page.locator(".debug-result .reason").first.inner_text() == (
        "The output differs from the reference."
    )
    screenshot(page, "debug-pick-rows")
