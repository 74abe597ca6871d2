"""Headless Chromium: the simulated user's scenario columns are picked from the set's Text
columns (preselected by name), and the app under test is filled in with the HTTP target's own
fields (or the prompt target's) — no JSON — then tried with Test request; in
English and Chinese, at desktop and phone width (screenshots kept)."""

import pytest

from assay import services as platform
from evalsets import services as evalset_services
from tests.support.app_server import ScriptedApp
from tests.support.fixtures import screenshot, sign_in
from tests.support.llm_fixtures import TEST_API_KEY

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COLUMNS = [
    {"name": name, "content_type": "Text", "required": name != "opening"}
    for name in ("persona", "goal", "opening")
]


@pytest.fixture
def app():
    with ScriptedApp() as server:
        yield server


def scenario_set(workspace, user):
    evalset = evalset_services.evalset_create(
        workspace=workspace, user=user, name="Refund chats", columns=COLUMNS
    )
    row = {"persona": "A hurried customer", "goal": "Get a refund for order 42", "opening": ""}
    evalset_services.item_create(evalset=evalset, data=row)
    return evalset_services.version_commit(evalset=evalset, user=user, version="1.0.0")


def test_simulated_user_form_uses_column_pickers_and_the_http_form(
    live_server, page, user, workspace, app, llm_server
):
    version = scenario_set(workspace, user)
    platform.provider_create(
        workspace=workspace,
        name="Simulator",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key=TEST_API_KEY,
    )
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/new/")
    page.select_option("#id_evalset_version", str(version.public_id))
    page.fill("#id_name", "Refund chats vs our app")
    page.check("input[name=target_kind][value=simulated_user]")
    # the pickers took the columns named like them; only this set's Text columns are offered
    assert page.input_value("#id_su_persona") == "persona"
    assert page.input_value("#id_su_goal") == "goal"
    assert page.input_value("#id_su_opening") == "opening"
    page.select_option("#id_su_opening", "")
    page.select_option("#id_su_provider_id", index=1)
    assert page.locator("#su-app-http").is_visible()
    assert not page.locator("#su-app-prompt").is_visible()
    page.check("input[name=su_app_kind][value=prompt]")
    assert page.locator("#su-app-prompt").is_visible()
    assert not page.locator("#su-app-http").is_visible()
    page.check("input[name=su_app_kind][value=http]")
    page.fill("#id_su_app_http_url", app.url)
    page.fill("#id_su_app_http_body", '{"question": "{{message}}"}')
    page.fill("#id_su_app_http_output", "answer")
    page.click("#target-simulated_user summary >> text=Instructions")
    page.fill("#id_su_max_turns", "2")

    page.click("#test-request-simulated_user")
    result = page.locator("#target-test-simulated_user .test-result")
    result.wait_for(timeout=30_000)
    assert result.get_attribute("data-status") == "success", page.inner_text(
        "#target-test-simulated_user"
    )
    assert app.calls >= 1  # the app under test answered the simulated user
    assert page.input_value("#id_su_opening") == ""  # "none" stays chosen after the swap
    page.locator("#su-app").scroll_into_view_if_needed()
    screenshot(page, "experiment-new-simulated-user-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    screenshot(page, "experiment-new-simulated-user-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1440, "height": 900})

    page.goto(f"{live_server.url}/w/acme/experiments/new/")
    page.select_option("#lang-switch", "zh-hans")
    page.wait_for_selector("html[lang=zh-hans]")
    page.select_option("#id_evalset_version", str(version.public_id))
    page.check("input[name=target_kind][value=simulated_user]")
    assert page.input_value("#id_su_persona") == "persona"
    page.locator("#su-app").scroll_into_view_if_needed()
    screenshot(page, "zh-experiment-new-simulated-user-1440")
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator("#su-app").scroll_into_view_if_needed()
    screenshot(page, "zh-experiment-new-simulated-user-390")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
