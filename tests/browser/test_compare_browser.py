"""Headless Chromium: compare two finished experiments, filter to regressions, open one."""

import pytest

from tests.experiments.test_compare import pair  # noqa: F401 - the fixture
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
