"""Headless Chromium: no page scrolls sideways on a phone (390 px) or on a desktop (1440 px),
and on a phone the top bar folds into a menu button that shows the links when pressed.

Every main page is visited with the demo workspace loaded (all its runs finished), so tables,
editors and dashboards carry real, wide content.
"""

import pytest

from assay.demo import DEMO_PASSWORD, DEMO_USERNAME, DEMO_WORKSPACE, demo_load
from evalsets.demo import DEMO_NAME as IMAGES_EVALSET
from evalsets.models import EvalSet
from evaluators.models import Evaluator
from experiments.demo import BASELINE, EVALSET_NAME, EVALUATOR_NAME, GARAK_RUN, PUSHED, STRICTER
from experiments.models import Experiment
from tests.support.fixtures import screenshot, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE, DESKTOP = 390, 1440
# Kept as artefacts at phone width (and looked at when the layout changes).
SCREENSHOTS = {
    "evaluators",
    "evaluator-draft",
    "evalset",
    "evalset-images",
    "experiment",
    "compare",
    "settings-providers",
    "pairwise-run",
}
# The elements that stick out past the right edge of the viewport without a scrolling box
# between them and the page: named in a failure so it says what to fix.
OVERFLOWING = """() => {
  const vw = window.innerWidth, out = [];
  for (const el of document.querySelectorAll('body *')) {
    const box = el.getBoundingClientRect();
    // Text wider than its own box (an unbroken string) sticks out too.
    const own = getComputedStyle(el).overflowX === 'visible' ? el.scrollWidth : 0;
    const right = Math.max(box.right, box.left + own);
    if (box.width === 0 || right <= vw + 1) continue;
    let p = el.parentElement, clipped = false;
    for (; p && p !== document.body; p = p.parentElement) {
      const scrolls = getComputedStyle(p).overflowX !== 'visible';
      if (scrolls && p.getBoundingClientRect().right <= vw + 1) { clipped = true; break; }
    }
    if (!clipped) out.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
      + (typeof el.className === 'string' && el.className.trim()
        ? '.' + el.className.trim().split(/\\s+/).join('.') : '')
      + ' (right edge ' + Math.round(right) + ')');
  }
  return out.slice(0, 8);
}"""
SCROLL_WIDTH = "[document.documentElement.scrollWidth, window.innerWidth]"
# Unbroken text (a URL, an id, JSON) must wrap, not widen the page.
LONG_URL = "https://example.com/" + "a-very-long-path-segment/" * 12 + "?id=" + "0123456789" * 10
LONG_JSON = '{"key":"' + "v" * 160 + '"}'


def demo_pages():
    """(name, path under the workspace, a selector the page shows when it has rendered)."""
    evaluator = Evaluator.objects.get(name=EVALUATOR_NAME).public_id
    judge = Evaluator.objects.get(kind="llm").public_id  # the "correctness" preset
    evalset = EvalSet.objects.get(name=EVALSET_NAME).public_id
    images = EvalSet.objects.get(name=IMAGES_EVALSET).public_id  # Text and Image columns
    run = {
        name: Experiment.objects.get(name=name).public_id
        for name in (BASELINE, STRICTER, PUSHED, GARAK_RUN)
    }
    return [
        ("evaluators", "/evaluators/", "#evaluator-table"),
        ("evaluator-new", "/evaluators/new/", "#new-evaluator"),
        ("evaluator-draft", f"/evaluators/{evaluator}/", ".CodeMirror"),
        ("evaluator-judge", f"/evaluators/{judge}/", "#draft-form"),
        ("evaluator-versions", f"/evaluators/{evaluator}/versions/", "#versions-table"),
        ("evalsets", "/evalsets/", "#evalset-table"),
        ("evalset", f"/evalsets/{evalset}/", "#rows-table"),
        ("evalset-images", f"/evalsets/{images}/", "#rows-table img.thumb"),
        ("evalset-columns", f"/evalsets/{evalset}/columns/", "#columns-table"),
        ("evalset-versions", f"/evalsets/{evalset}/versions/", "#versions-table"),
        ("evalset-import", f"/evalsets/{evalset}/import/", "#import-form"),
        ("experiments", "/experiments/", "#experiment-table"),
        ("experiment-new", "/experiments/new/", "#experiment-form"),
        ("experiment", f"/experiments/{run[BASELINE]}/", "#results-table"),
        ("experiment-pushed", f"/experiments/{run[PUSHED]}/", "#results-table"),
        ("experiment-garak", f"/experiments/{run[GARAK_RUN]}/", "#results-table"),
        ("compare-picker", "/compare/", "#compare-picker"),
        (
            "compare",
            f"/compare/?baseline={run[BASELINE]}&candidates={run[STRICTER]}",
            ".metrics-table",
        ),
        ("garak-import", "/experiments/import-garak/", "#garak-import-form"),
        *_pairwise_pages(),
        ("settings-providers", "/settings/providers/", "main table"),
        ("settings-secrets", "/settings/secrets/", "#secret-form"),
        ("settings-members", "/settings/members/", "main table"),
        ("settings-tokens", "/settings/tokens/", "main h1"),
    ]


def _pairwise_pages():
    """The demo's three-way pairwise run: its page (bars, leaderboard), rows and one pair."""
    from experiments.models import PairwiseRun
    from experiments.pairwise.demo import RUN_NAME

    run = PairwiseRun.objects.get(name=RUN_NAME)
    pair = run.results.order_by("position", "pk").first().pk
    return [
        ("pairwise-list", "/pairwise/", "#pairwise-table"),
        ("pairwise-new", "/pairwise/new/", "#pairwise-form"),
        ("pairwise-run", f"/pairwise/{run.public_id}/", "#leaderboard"),
        ("pairwise-rows", f"/pairwise/{run.public_id}/rows/", ".pair-row"),
        ("pairwise-pair", f"/pairwise/{run.public_id}/rows/{pair}/", "#orders"),
    ]


def sign_in_demo(page, live_server) -> None:
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", DEMO_USERNAME)
    page.fill("#id_password", DEMO_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/w/*/evaluators/")


def test_no_page_scrolls_sideways_on_a_phone_or_a_desktop(live_server, page):
    demo_load()
    pages = demo_pages()
    Experiment.objects.filter(name=BASELINE).update(description=f"See {LONG_URL} and {LONG_JSON}")
    Evaluator.objects.filter(name=EVALUATOR_NAME).update(description=LONG_URL)
    EvalSet.objects.filter(name=EVALSET_NAME).update(description=f"{LONG_JSON} {LONG_URL}")
    base = f"{live_server.url}/w/{DEMO_WORKSPACE}"
    too_wide = []
    for width in (PHONE, DESKTOP):
        page.set_viewport_size({"width": width, "height": 900})
        if width == PHONE:
            sign_in_demo(page, live_server)
        for name, path, ready in pages:
            page.goto(base + path)
            page.wait_for_selector(ready)
            # Deferred page scripts (the code editor, the plan) have run by "load".
            page.wait_for_load_state("load")
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(
                    f"{name} at {width} px ({base + path}): {scroll_width} px wide; "
                    f"sticking out: {', '.join(page.evaluate(OVERFLOWING)) or '?'}"
                )
            if width == PHONE and name in SCREENSHOTS:
                screenshot(page, f"phone-{name}")
    assert not too_wide, "pages wider than the viewport:\n" + "\n".join(too_wide)
    assert page.console_errors == []


def nav_link_visible(page) -> bool:
    return page.locator("nav.mainnav a", has_text="Experiments").is_visible()


def test_the_top_bar_folds_into_a_menu_button_on_a_phone(live_server, page, user, workspace):
    page.set_viewport_size({"width": PHONE, "height": 800})
    sign_in(page, live_server)
    toggle = page.locator("button[data-nav-toggle]")
    assert toggle.is_visible()
    assert toggle.get_attribute("aria-expanded") == "false"
    assert toggle.get_attribute("aria-controls") == "topbar-menu"
    assert not nav_link_visible(page)
    assert not page.locator("#ws-switch").is_visible()
    assert not page.get_by_role("button", name="Sign out").is_visible()

    toggle.click()
    wait_until(page, "document.querySelector('[data-nav-toggle]').ariaExpanded === 'true'")
    assert nav_link_visible(page)
    assert page.locator("#ws-switch").is_visible()
    assert page.get_by_role("button", name="Sign out").is_visible()
    assert page.evaluate(SCROLL_WIDTH)[0] <= PHONE
    screenshot(page, "phone-menu-open")

    # The keyboard: Escape closes it and gives focus back to the button; Enter opens it.
    page.keyboard.press("Escape")
    wait_until(page, "document.querySelector('[data-nav-toggle]').ariaExpanded === 'false'")
    assert not nav_link_visible(page)
    assert page.evaluate("document.activeElement.matches('[data-nav-toggle]')")
    page.keyboard.press("Enter")
    wait_until(page, "document.querySelector('[data-nav-toggle]').ariaExpanded === 'true'")
    assert nav_link_visible(page)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.closest('nav.mainnav') !== null")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Space")
    wait_until(page, "document.querySelector('[data-nav-toggle]').ariaExpanded === 'false'")

    # A link in the open menu goes where it says; the next page starts with the menu closed.
    toggle.click()
    page.locator("nav.mainnav a", has_text="Experiments").click()
    page.wait_for_url("**/w/acme/experiments/")
    assert page.locator("button[data-nav-toggle]").get_attribute("aria-expanded") == "false"
    assert not nav_link_visible(page)

    # A click outside the top bar closes the menu.
    page.locator("button[data-nav-toggle]").click()
    assert nav_link_visible(page)
    page.locator("main h1").click()
    wait_until(page, "document.querySelector('[data-nav-toggle]').ariaExpanded === 'false'")

    # On a desktop the links are always there and the button is not.
    page.set_viewport_size({"width": DESKTOP, "height": 900})
    assert not page.locator("button[data-nav-toggle]").is_visible()
    assert nav_link_visible(page)
    assert page.locator("#ws-switch").is_visible()
    assert page.console_errors == []
