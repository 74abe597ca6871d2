"""Headless Chromium on alerts: an editor adds an alert on the rule's page (the default
explained beside the form); its history page shows what fired and resolved and the monitor
badges the hour; both pages fit a phone and a desktop in English and Chinese, with no script
error; screenshots kept."""

from datetime import timedelta

import pytest
from django.utils import timezone

from assay.models import UserPreference
from online.models import AlertEvent, RuleAlert
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.online.support import code_rule
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _history(alert) -> None:
    """A fired and a resolved window, three and one hours ago."""
    hour = timezone.now().replace(minute=0, second=0, microsecond=0)
    for hours, action, value, z, test in (
        (3, "fired", 0.38, 5.4, "window"),
        (1, "resolved", 0.06, 0.2, ""),
    ):
        start = hour - timedelta(hours=hours)
        AlertEvent.objects.create(
            alert=alert,
            action=action,
            window_start=start,
            window_end=start + timedelta(hours=1),
            value=value,
            baseline=0.05,
            z=z,
            test=test,
            n=120,
        )


def test_an_alert_added_on_the_rule_page_and_its_history(live_server, page, user, workspace):
    rule = code_rule(workspace, user, name="Support answers")
    sign_in(page, live_server)
    rule_url = f"{live_server.url}/w/{workspace.slug}/online/{rule.public_id}/"
    page.goto(rule_url)
    page.click("#alert-new summary")
    assert "significantly worse than the last 24" in page.inner_text("#alert-new")
    page.select_option("#alert-new select[name=metric]", "fail_rate")
    page.click("#alert-create")
    page.wait_for_selector("#alerts-table")
    alert = RuleAlert.objects.get()
    assert (alert.metric, alert.direction, alert.mode) == ("fail_rate", "rise", "statistical")
    _history(alert)
    alert_url = f"{rule_url}alerts/{alert.public_id}/"
    dialogs, too_wide = [], []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            for name, url in (("rule", rule_url + "?window=hour"), ("alert", alert_url)):
                page.goto(url)
                if name == "rule":  # the form open, with the default explained
                    page.click("#alert-new summary")
                scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
                if scroll_width > inner_width:
                    too_wide.append(f"{name} {language} {width}: {page.evaluate(OVERFLOWING)}")
                screenshot(page, f"online-alert-{name}-{language}-{width}")
    assert not too_wide, too_wide
    assert dialogs == [] and page.console_errors == []
    UserPreference.objects.update_or_create(user=user, defaults={"language": "en"})
    page.goto(alert_url)
    rows = page.locator("#alert-events tbody tr")
    assert rows.count() == 2 and "38.0%" in rows.nth(1).inner_text()
    page.goto(rule_url + "?window=hour")
    assert page.locator(".alert-fired").count() == 1
