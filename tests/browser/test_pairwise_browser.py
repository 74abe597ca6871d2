"""Headless Chromium: a finished three-way pairwise run — the win / tie / lose bars, the
switch between ties split and excluded, the leaderboard in rank order — then the rows filtered
to position-inconsistent pairs and one pair in full, at desktop and phone width, never wider
than the screen. Screenshots are kept."""

import pytest

from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTHS = (1440, 390)


def _fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_leaderboard_and_a_row(live_server, page, pw_finished):
    run = pw_finished("X", "Y", "Z", name="Three apps, pairwise", interval={"min_sample": 5})
    sign_in(page, live_server)
    base = f"{live_server.url}/w/acme/pairwise/{run.public_id}"
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/")
        page.wait_for_selector("#leaderboard")
        ranks = page.locator("#leaderboard tbody tr td.rank").all_inner_texts()
        assert ranks == sorted(ranks) and len(ranks) == 3
        first = page.locator("#leaderboard tbody tr").first.inner_text()
        assert "app Z" in first  # Z answers best
        assert page.locator(".pair-card").count() == 3
        assert page.locator("svg.pairbar .range").count() >= 1  # an interval on a bar
        assert "Ties split" in page.locator("#ties-text").inner_text()
        assert _fits(page), f"the run page is wider than {width} px"
        screenshot(page, f"pairwise-leaderboard-{width}")
    page.click("#ties-exclude")
    page.wait_for_selector("#ties-exclude[aria-current]")
    assert "Ties excluded" in page.locator("#ties-text").inner_text()
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/rows/?inconsistent=true")
        page.wait_for_selector(".pair-row")
        flags = page.locator(".pair-row").evaluate_all(
            "rows => rows.map(r => r.dataset.inconsistent)"
        )
        assert flags and set(flags) == {"1"}
        sides = page.locator(".pair-row").first.locator(".pair-sides .side")
        a, b = sides.nth(0).bounding_box(), sides.nth(1).bounding_box()
        if width == 1440:
            assert a["x"] < b["x"] and abs(a["y"] - b["y"]) < 2  # side by side
        else:
            assert b["y"] >= a["y"] + a["height"] - 1  # stacked on a phone
        assert _fits(page), f"the rows are wider than {width} px"
        screenshot(page, f"pairwise-rows-{width}")
        page.locator(".pair-row .open-pair").first.click()
        page.wait_for_selector("#orders")
        assert page.locator("#orders .order").count() == 2
        assert "Shown B, A" in page.locator("#orders").inner_text()
        page.locator("#orders details summary").first.click()
        assert _fits(page), f"a pair's page is wider than {width} px"
        screenshot(page, f"pairwise-row-{width}")
    assert page.console_errors == []
