"""Headless Chromium: sign in as a user, land in the workspace, open settings."""

import pytest

from tests.conftest import PASSWORD
from tests.support.fixtures import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_sign_in_and_browse(live_server, page, user, workspace):
    page.goto(live_server.url + "/")
    assert "Sign in to Assay" in page.content()
    screenshot(page, "signin")
    page.fill("#id_username", "alice")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/w/acme/evaluators/")
    assert page.locator("nav.mainnav").inner_text().split() == [
        "Evaluators",
        "Evalsets",
        "Experiments",
        "Compare",
        "Pairwise",
        "Traces",
        "Online",
        "Annotation",
        "Import",
        "garak",
        "Settings",
        "API",
        "docs",
    ]
    page.click("nav.mainnav >> text=Settings")
    page.wait_for_url("**/settings/providers/")
    assert "No model providers yet" in page.content()
    screenshot(page, "settings-providers")
    assert page.console_errors == []
