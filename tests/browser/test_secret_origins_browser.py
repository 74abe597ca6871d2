"""Headless Chromium: an owner adds a secret with its allowed origins on Settings → Secrets,
edits them through the row's Edit link, and the table shows each secret's origins (or that it
is sent nowhere), at desktop and phone widths."""

import pytest

from assay import services as platform
from assay.models import Secret
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VALUE = "app-token-0123456789abcdef"


def test_an_owner_sets_a_secrets_origins_on_the_page(live_server, page, user, workspace):
    platform.secret_named_save(workspace=workspace, name="LEGACY_TOKEN", value=VALUE)
    sign_in(page, live_server)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/w/acme/settings/secrets/")
    page.fill("#id_name", "APP_TOKEN")
    page.fill("#id_value", VALUE)
    page.fill("#id_origins", "https://App.Example.com/\nhttp://127.0.0.1:8000")
    page.click("#secret-form button[type=submit]")
    row = page.locator("tr[data-secret=APP_TOKEN] .secret-origins")
    row.wait_for()
    assert row.inner_text().split() == ["https://app.example.com", "http://127.0.0.1:8000"]
    legacy = page.locator("tr[data-secret=LEGACY_TOKEN] .secret-origins").inner_text()
    assert "none: sent nowhere" in legacy
    screenshot(page, "settings-secrets-origins")
    # Edit fills the form with the name and origins; an empty value keeps the stored one
    page.click("tr[data-secret=LEGACY_TOKEN] a:has-text('Edit')")
    assert page.input_value("#id_name") == "LEGACY_TOKEN"
    page.fill("#id_origins", "https://legacy.example.com")
    page.click("#secret-form button[type=submit]")
    page.locator("tr[data-secret=LEGACY_TOKEN] .secret-origins code").wait_for()
    assert Secret.objects.get(name="LEGACY_TOKEN").origins == ["https://legacy.example.com"]
    # a bad origin is named on its field
    page.fill("#id_name", "BAD")
    page.fill("#id_value", VALUE)
    page.fill("#id_origins", "https://bad.example.com/v1")
    page.click("#secret-form button[type=submit]")
    assert "is not an origin" in page.inner_text("#secret-form")
    page.set_viewport_size({"width": 390, "height": 844})
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width} px)"
    screenshot(page, "settings-secrets-origins-390")
    assert page.console_errors == []
