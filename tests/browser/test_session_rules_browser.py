"""Headless Chromium on session rules: the new-rule page with the session scope chosen and its
sources offered, and a session page with its session rule's outcome, at 390 and 1440 px in
English and Chinese, with no overflow or script error; screenshots kept."""

from datetime import timedelta

import pytest
from django.utils import timezone

from online.kind import online_run_inline
from online.services import online_sweep
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.online.support import store
from tests.online.test_session_scope import _turn, echo_version, session_rule
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SESSION = "support/" + "s" * 120


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_session_rule_pages_fit_a_phone_and_a_desktop(live_server, page, user, workspace, language):
    start = timezone.now() - timedelta(hours=1)
    rule = session_rule(workspace, user, name="A whole conversation " + "w" * 60, swept_until=start)
    store(
        [
            _turn(
                workspace,
                SESSION,
                f"{i + 1:032x}",
                said=f"Question {i}",
                answered="Answer",
                received=start + timedelta(seconds=i),
            )
            for i in range(3)
        ]
    )
    run = online_sweep(rule_id=rule.pk, now=timezone.now())
    online_run_inline(run_id=run.pk)
    version = echo_version(workspace, user, name="Another echo")
    page.context.set_extra_http_headers({"Accept-Language": language})
    sign_in(page, live_server)
    base = f"{live_server.url}/w/{workspace.slug}"
    alerts, too_wide = [], []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    for width in (390, 1440):
        kind = "phone" if width == 390 else "desktop"
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/traces/sessions/{SESSION}/")
        page.wait_for_selector("#online-session-scores [data-verdict=pass]")
        _fits(page, f"session at {width}", too_wide)
        screenshot(page, f"{kind}-session-rule-outcome-{language}")
        page.goto(f"{base}/online/new/")
        page.fill("#id_name", "chats")
        page.select_option("#id_scope", "session")
        page.check(f"input[value='{version.public_id}']")
        page.click("#choose-mapping")
        page.wait_for_selector(f"select[name='map:{version.public_id}:conversation']")
        chosen = page.input_value(f"select[name='map:{version.public_id}:conversation']")
        assert chosen == "session:conversation"
        _fits(page, f"new rule at {width}", too_wide)
        screenshot(page, f"{kind}-new-session-rule-{language}")
    assert not too_wide, too_wide
    assert alerts == [] and page.console_errors == []


def _fits(page, name: str, too_wide: list) -> None:
    scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
    if scroll_width > inner_width:
        too_wide.append(f"{name}: {page.evaluate(OVERFLOWING)}")
