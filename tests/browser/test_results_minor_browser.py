"""Headless Chromium, issue 28's small things on results and dashboards: the whole grid row
opens its drawer (a click anywhere, Enter on the focused row), titled by row number; Chinese
two-character labels (版本) and relative times on one line; the dashboard, trends and API docs
at 1440 and 390 px in English and Chinese (screenshots kept)."""

import pytest

from evaluators.services import evaluator_create
from tests.experiments.test_trends import history  # noqa: F401 - the fixture
from tests.support.fixtures import ARTIFACTS, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NO_SIDEWAYS = "document.documentElement.scrollWidth <= window.innerWidth"
# How many lines an element's text takes (one client rect per line box).
LINES = """(el) => { const r = document.createRange(); r.selectNodeContents(el);
  return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size; }"""


def shot(locator, name: str) -> None:
    """A screenshot of one element, kept beside the full-page ones."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    locator.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def open_drawer_title(page) -> str:
    page.wait_for_selector("#result-drawer")
    return page.locator("#result-drawer h2").inner_text()


def close_drawer(page) -> None:
    page.locator("#result-drawer [data-close-drawer]").click()
    page.wait_for_selector("#result-drawer", state="detached")


def test_the_whole_row_opens_its_drawer(live_server, page, history):  # noqa: F811
    _, runs = history
    sign_in(page, live_server)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/experiments/{runs[2].public_id}/#results")
        rows = page.locator("#results-table tbody tr")
        rows.nth(2).locator("td.data-cell").first.click()  # a cell, not the number button
        assert open_drawer_title(page) == "Row 3"
        shot(page.locator("#result-drawer"), f"results-row-drawer-{width}")
        close_drawer(page)

        rows.nth(4).locator("td.eval-cell .badge").first.click()  # the verdict chip
        assert open_drawer_title(page) == "Row 5"
        close_drawer(page)

        rows.nth(6).focus()  # the keyboard: Enter on a focused row
        page.keyboard.press("Enter")
        assert open_drawer_title(page) == "Row 7"
        assert page.evaluate(NO_SIDEWAYS)
        close_drawer(page)
    assert page.console_errors == []


def test_chinese_labels_and_times_fit_and_pages_read_well(
    live_server,
    page,
    history,  # noqa: F811
    workspace,
    user,
):
    _, runs = history
    evaluator = runs[2].bindings.first().evaluator_version.evaluator
    for i in range(3):  # long descriptions and tags squeeze the list's short columns
        evaluator_create(
            workspace=workspace,
            user=user,
            name=f"检查 {i}",
            kind="code",
            language="python",
            description="判断回答是否完整、准确，并与参考答案一致；" * 4,
            tags=["质量", "参考答案", "字符串", "回答完整性"],
        )
    sign_in(page, live_server)
    page.select_option("#lang-switch", "zh-hans")
    page.wait_for_selector("nav.mainnav >> text=评估器")
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/evaluators/")
        header = page.locator("table thead th", has_text="版本").first
        assert header.inner_text() == "版本" and header.evaluate(LINES) == 1, width
        when = page.locator("table tbody td.when").first
        assert when.evaluate(LINES) == 1 and "0 分钟" not in page.content()
        screenshot(page, f"zh-evaluators-list-{width}")

        page.goto(f"{live_server.url}/w/acme/experiments/{runs[2].public_id}/")
        page.locator("#trends svg.trend-chart >> visible=true").first.wait_for()
        assert page.evaluate(NO_SIDEWAYS), width
        screenshot(page, f"zh-run-{width}")
        shot(page.locator("#trends"), f"zh-trends-{width}")
        shot(page.locator("#dashboard .eval-card").first, f"zh-card-{width}")
        page.locator("#results-table tbody tr").nth(11).locator("td.data-cell").first.click()
        assert open_drawer_title(page) == "第 12 行"
        shot(page.locator("#result-drawer"), f"zh-drawer-{width}")
        close_drawer(page)

        page.goto(f"{live_server.url}/w/acme/evaluators/{evaluator.public_id}/")
        required = page.locator("#variables-table thead th", has_text="必填").first
        remove = page.locator("#variables-table button", has_text="移除").first
        remove.wait_for()
        assert required.evaluate(LINES) == 1 and remove.evaluate(LINES) == 1, width
        shot(page.locator("#variables-table"), f"zh-variables-{width}")

        page.goto(f"{live_server.url}/api/docs/")
        back = page.locator("#api-docs-back a")
        assert back.is_visible()
        page.wait_for_selector(".swagger-ui .info")
        screenshot(page, f"zh-api-docs-{width}")
        back.click()
        page.wait_for_url("**/w/acme/**")
    assert page.console_errors == []


def test_english_run_page_at_both_widths(live_server, page, history):  # noqa: F811
    _, runs = history
    sign_in(page, live_server)
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/w/acme/experiments/{runs[2].public_id}/")
        page.locator("#trends svg.trend-chart >> visible=true").first.wait_for()
        cost = page.locator("[data-usage-evaluator='Echo'] dd.cost")
        assert cost.inner_text() == "—"
        assert page.evaluate(NO_SIDEWAYS), width
        screenshot(page, f"run-page-{width}")
        shot(page.locator("#usage"), f"run-usage-{width}")
        shot(page.locator("#dashboard .eval-card").first, f"run-card-{width}")
        shot(page.locator("#trends"), f"trends-{width}")
    assert page.console_errors == []
