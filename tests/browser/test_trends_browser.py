"""Headless Chromium: the trends on an evalset's page and on an experiment page, with the
regression marked, at desktop and phone width."""

import pytest

from tests.experiments.test_trends import history  # noqa: F401 - the fixture
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCROLL_WIDTH = "[document.documentElement.scrollWidth, window.innerWidth]"


def test_trends_mark_the_regression_and_fit_a_phone(live_server, page, history):  # noqa: F811
    evalset, runs = history
    sign_in(page, live_server)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{live_server.url}/w/acme/evalsets/{evalset.public_id}/")
    # each chart comes in a compact (phone) and a wide layout; CSS shows one
    chart = page.locator("figure.trend[data-evaluator] svg.trend-chart >> visible=true").first
    chart.wait_for()
    assert chart.bounding_box()["width"] > 1000  # the wide one fills the card at 1440 px
    assert chart.get_attribute("role") == "img"
    assert "Pass rate of Contains in 4 runs" in chart.get_attribute("aria-label")
    marker = chart.locator(".trend-point.regression")
    assert marker.count() == 1 and marker.get_attribute("data-run") == str(runs[2].public_id)
    assert marker.locator(".trend-note").text_content().endswith("regression")
    assert marker.locator(".trend-note").is_visible()
    assert marker.locator("polygon.trend-marker").is_visible()
    assert page.locator("figure.trend .trend-regressions").first.inner_text() == "1 regression"
    page.locator("figure.trend .trend-table summary").first.click()
    cells = page.locator("figure.trend .trend-table tr.regression .trend-change").first
    assert "regression (p < 0.001)" in cells.inner_text()
    assert "30 pass → fail, 0 fail → pass of 80 paired rows" in cells.inner_text()
    assert "p < 0.05" in page.locator("#trends-legend").inner_text()
    screenshot(page, "trends-evalset-1440")

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    page.locator("svg.trend-chart >> visible=true").first.wait_for()
    scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
    assert scroll_width <= inner_width
    screenshot(page, "trends-evalset-390")

    page.goto(f"{live_server.url}/w/acme/experiments/{runs[2].public_id}/")
    page.locator("#trends svg.trend-chart >> visible=true").first.wait_for()
    current = page.locator("#trends .trend-current >> visible=true")
    assert current.count() == 2  # one column per evaluator
    scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
    assert scroll_width <= inner_width
    page.locator("#trends").screenshot(path=str(screenshot_path("trends-experiment-390")))
    assert page.console_errors == []


def screenshot_path(name: str):
    """Where `screenshot` keeps its pictures, for a picture of one element."""
    from tests.support.fixtures import ARTIFACTS

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS / f"{name}.png"
