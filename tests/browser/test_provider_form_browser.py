"""Headless Chromium, en and zh-hans at 1440 and 390 px: a new provider's form has empty
Prices and an optional key, and Test connection answers inline before anything is saved
(issue 28)."""

import pytest

from assay import services as platform
from assay.models import ModelProvider
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("lang", ["en", "zh-hans"])
def test_a_new_provider_tests_its_connection_before_saving(
    live_server, page, user, workspace, llm_server, lang
):
    platform.preference_language_set(user=user, language=lang)
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/settings/providers/new/")
    assert page.input_value("#id_prices") == ""
    page.fill("#id_name", "Local")
    page.fill("#id_base_url", llm_server.base_url)
    page.fill("#id_default_model", "judge-model")
    page.fill("#id_api_key", "sk-test-0123456789abcdef")
    page.click("#provider-test")
    page.wait_for_selector("#provider-test-result")
    assert page.locator("#provider-test-result").get_attribute("data-ok") == "1"
    assert "sk-test-0123456789abcdef" not in page.locator("#provider-test-result").inner_text()
    assert not ModelProvider.objects.exists()  # tried, not saved
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        screenshot(page, f"provider-new-test-connection-{lang}-{width}")
    assert page.console_errors == []
