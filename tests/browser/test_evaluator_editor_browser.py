"""Headless Chromium: the draft editor helps instead of surprising — switching a code
evaluator's language offers the other language's starter (asking first when the code was
edited), the help text speaks the chosen language, choosing a provider sets its default model,
and leaving with unsaved changes asks first."""

import pytest

from assay import services as platform
from evaluators import services as evaluator_services
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CODE = "document.querySelector('.CodeMirror').CodeMirror"


def editor(page, live_server, evaluator):
    page.goto(f"{live_server.url}/w/acme/evaluators/{evaluator.public_id}/")


def test_switching_language_offers_the_starter_and_asks_when_edited(
    live_server, page, user, workspace
):
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Checker", kind="code", language="python"
    )
    sign_in(page, live_server)
    editor(page, live_server, evaluator)
    page.wait_for_selector(".CodeMirror")
    assert page.locator(".code-help[data-language=python]").first.is_visible()
    assert not page.locator(".code-help[data-language=javascript]").is_visible()

    page.select_option("#code-language", "javascript")  # untouched: replaced without asking
    assert "function exec_evaluation" in page.evaluate(f"{CODE}.getValue()")
    assert page.locator(".code-help[data-language=javascript]").is_visible()
    assert not page.locator("#python-imports").is_visible()

    page.evaluate(f"{CODE}.setValue('function exec_evaluation(t) {{ return 1; }} // mine')")
    asked = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.select_option("#code-language", "python")
    assert asked and "Your edits will be lost" in asked[0]
    assert "// mine" in page.evaluate(f"{CODE}.getValue()")  # declined: the code stays
    assert page.input_value("#code-language") == "javascript"  # and so does its language
    screenshot(page, "editor-language-switch")

    leaving = []
    page.on("dialog", lambda dialog: (leaving.append(dialog.type), dialog.dismiss()))
    page.close(run_before_unload=True)
    page.wait_for_timeout(200)
    assert leaving == ["beforeunload"]


def test_cancelling_python_to_javascript_keeps_python(live_server, page, user, workspace):
    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Checker", kind="code", language="python"
    )
    sign_in(page, live_server)
    editor(page, live_server, evaluator)
    page.wait_for_selector(".CodeMirror")
    page.evaluate(f"{CODE}.setValue('def exec_evaluation(turn):\\n    return 1  # mine')")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.select_option("#code-language", "javascript")
    assert page.input_value("#code-language") == "python"
    assert page.evaluate(f"{CODE}.getOption('mode')") == "python"
    assert page.locator(".code-help[data-language=python]").first.is_visible()
    screenshot(page, "editor-language-switch-cancelled")
    page.click("#save-draft")
    page.wait_for_selector("text=Draft saved")
    evaluator.refresh_from_db()
    assert evaluator.draft_config["language"] == "python"
    assert "# mine" in evaluator.draft_config["source"]
    assert page.console_errors == []


def test_choosing_a_provider_sets_its_default_model(live_server, page, user, workspace):
    first = platform.provider_create(
        workspace=workspace, name="First", base_url="http://127.0.0.1:9/v1", default_model="m-one"
    )
    platform.provider_create(
        workspace=workspace, name="Second", base_url="http://127.0.0.1:9/v1", default_model="m-two"
    )
    judge = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Judge", kind="llm"
    )
    sign_in(page, live_server)
    editor(page, live_server, judge)
    page.wait_for_selector("#model-provider")
    page.select_option("#model-provider", label="First")
    assert page.input_value("#model-name") == "m-one"
    page.select_option("#model-provider", label="Second")
    assert page.input_value("#model-name") == "m-two"  # the default follows the provider
    page.fill("#model-name", "my-own-model")
    page.select_option("#model-provider", str(first.public_id))
    assert page.input_value("#model-name") == "my-own-model"  # a typed model is kept
    assert page.console_errors == []


def test_a_provider_tests_its_connection(live_server, page, user, workspace, llm_server):
    provider = platform.provider_create(
        workspace=workspace,
        name="Local",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key="sk-test-assay-0123456789",
    )
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/settings/providers/{provider.public_id}/")
    page.click("#provider-test")
    page.wait_for_selector("#provider-test-result")
    result = page.locator("#provider-test-result")
    assert result.get_attribute("data-ok") == "1" and "judge-model" in result.inner_text()
    screenshot(page, "provider-test-connection")
    assert page.console_errors == []


def test_a_name_already_taken_shows_its_error_at_the_name_field(live_server, page, user, workspace):
    evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Checker", kind="code", language="python"
    )
    sign_in(page, live_server)
    page.click("text=New evaluator")
    page.check("input[name=source][value=code]")
    page.fill("#id_name", "Checker")
    page.click("text=Create evaluator")
    error = page.locator(".field.has-error:has(#id_name) .error")
    error.first.wait_for()
    assert "already exists" in error.first.inner_text()
    screenshot(page, "editor-name-taken")
