"""Headless Chromium: template → edit draft → submit 0.0.1 and 0.0.2 → diff → copy → delete."""

import pytest

from evaluators.models import Evaluator
from tests.support.fixtures import open_dialog, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_evaluator_library_flow(live_server, page, user, workspace):
    sign_in(page, live_server)
    assert "No evaluators yet" in page.content()
    page.click("text=New evaluator")
    page.click("[data-template='equal']")
    assert page.input_value("#id_name") == "Equal"
    page.select_option("#id_language", "python")
    page.click("text=Create evaluator")
    page.wait_for_selector("text=Evaluator created")

    # edit the draft: description and the source in the code editor
    page.fill("#id_description", "Exact string match, whitespace-trimmed.")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("""() => {
        const cm = document.querySelector('.CodeMirror').CodeMirror;
        cm.setValue(cm.getValue().replace('def exec_evaluation', '# v1\\ndef exec_evaluation'));
    }""")
    page.click("#save-draft")
    page.wait_for_selector("text=Draft saved")
    screenshot(page, "evaluator-editor")

    open_dialog(page, "#open-submit", "#submit-dialog")
    assert page.input_value("#submit-dialog #id_version") == "1.0.0"
    page.fill("#submit-dialog #id_change_note", "first cut")
    page.click("#confirm-submit")
    page.wait_for_selector("text=Version 1.0.0 submitted")

    page.click("nav.tabs >> text=Draft")
    page.wait_for_selector(".CodeMirror")
    page.evaluate("""() => {
        const cm = document.querySelector('.CodeMirror').CodeMirror;
        cm.setValue(cm.getValue().replace('# v1', '# v2: stricter'));
    }""")
    page.click("#save-draft")
    page.wait_for_selector("text=Draft saved")
    open_dialog(page, "#open-submit", "#submit-dialog")
    assert page.input_value("#submit-dialog #id_version") == "1.0.1"
    page.click("#confirm-submit")
    page.wait_for_selector("text=Version 1.0.1 submitted")

    diff = page.locator("#diff-table")
    assert "# v1" in diff.locator(".diff-del").first.inner_text()
    assert "# v2: stricter" in diff.locator(".diff-add").first.inner_text()
    screenshot(page, "evaluator-diff")

    page.click("#copy-button")
    page.wait_for_selector("text=Copied as")
    assert page.locator("h1").inner_text() == "Equal (copy)"
    open_dialog(page, "#delete-button", "#delete-dialog")
    page.click("#confirm-delete")
    page.wait_for_url("**/w/acme/evaluators/")
    table = page.locator("#evaluator-table").inner_text()
    assert "Equal" in table and "Equal (copy)" not in table
    screenshot(page, "evaluator-list")

    original = Evaluator.objects.get(name="Equal")
    assert [v.version for v in original.versions.order_by("created_at")] == ["1.0.0", "1.0.1"]
    assert Evaluator.objects.get(name="Equal (copy)").deleted_at is not None
    assert page.console_errors == []
