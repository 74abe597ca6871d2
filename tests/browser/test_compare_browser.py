"""Headless Chromium: compare two finished experiments, filter to regressions, open one side
by side (a drawer, and a page of its own), at desktop and phone width."""

import pytest

from tests.experiments.test_compare import pair  # noqa: F401 - the fixture
from tests.experiments.test_compare_detail import judged  # noqa: F401 - the fixture
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_compare_two_experiments(live_server, page, pair):  # noqa: F811
    baseline, candidate = pair
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/compare/")
    page.select_option("#baseline", str(baseline.public_id))
    page.check(f"input[name=candidates][value='{candidate.public_id}']")
    page.click("#compare-button")
    page.wait_for_selector(".metrics-table")
    metrics = page.locator(".metrics-table").inner_text()
    assert "1.0.0 → 1.1.0" in metrics and "regressions" in metrics
    assert "5 rows only in the baseline, 3 only in the candidate" in metrics
    screenshot(page, "compare-metrics")
    page.select_option("#filter", "regressions")
    page.click("#diff-filters button[type=submit]")
    page.wait_for_selector("#diff-rows")
    kinds = page.locator("#diff-rows tbody tr .badge").all_inner_texts()
    assert kinds and set(
        k for k in kinds if k in {"regression", "improvement", "unknown flip", "unchanged"}
    ) == {"regression"}
    first = page.locator("#diff-rows tbody tr").first
    first.locator("summary").last.click()
    assert "strict: The capital is Paris" in first.locator(".reason").last.inner_text()
    screenshot(page, "compare-regressions")
    assert page.console_errors == []


def _box(page, selector: str) -> dict:
    return page.locator(selector).bounding_box()


def _no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_open_a_regression_side_by_side(live_server, page, judged):  # noqa: F811
    baseline, candidate, items, _ = judged
    sign_in(page, live_server)
    page.set_viewport_size({"width": 1440, "height": 900})
    query = f"baseline={baseline.public_id}&candidates={candidate.public_id}&filter=regressions"
    page.goto(f"{live_server.url}/w/acme/compare/?{query}")
    page.locator("#diff-rows .open-detail").first.click()
    detail = page.locator("#drawer #compare-detail")
    detail.wait_for()
    assert detail.get_attribute("data-row-number") == "1"
    assert page.locator("#detail-kind").inner_text() == "regression"
    inputs = detail.locator(".detail-inputs").inner_text()
    assert "capital of France?" in inputs and "Paris" in inputs
    base = detail.locator("[data-side=baseline]")
    cand = detail.locator("[data-side=candidate]")
    assert base.locator(".output del").inner_text() == "Paris."
    assert cand.locator(".output ins").inner_text() == "<b>Lyon</b>, surely. [[script:score:0.1]]"
    assert (
        base.locator(".verdict").inner_text() == "pass"
        and "fail" in cand.locator(".verdict").inner_text()
    )
    b, c = _box(page, "[data-side=baseline]"), _box(page, "[data-side=candidate]")
    assert b["x"] < c["x"] and abs(b["y"] - c["y"]) < 2  # side by side on a desktop
    href = cand.locator("a.row-link").get_attribute("href")
    assert href == f"/w/acme/experiments/{candidate.public_id}/?item={items[0]}#item-{items[0]}"
    screenshot(page, "compare-detail-1440")

    page.set_viewport_size({"width": 390, "height": 844})
    b, c = _box(page, "[data-side=baseline]"), _box(page, "[data-side=candidate]")
    assert c["y"] > b["y"] + b["height"] - 1  # stacked on a phone
    assert _no_sideways_scroll(page)
    screenshot(page, "compare-detail-390")
    detail.locator("[data-close-drawer]").click()
    assert page.locator("#compare-detail").count() == 0

    # without the drawer the same link is a page of its own, and the row links lead on
    url = page.locator("#diff-rows .open-detail").first.get_attribute("href")
    page.goto(live_server.url + url)
    page.locator("#compare-detail").wait_for()
    assert _no_sideways_scroll(page)
    screenshot(page, "compare-detail-page-390")
    page.locator("[data-side=baseline] a.row-link").click()
    page.wait_for_url(f"**/experiments/{baseline.public_id}/?item={items[0]}*")
    assert page.url.endswith(f"#item-{items[0]}")
    assert page.console_errors == []
