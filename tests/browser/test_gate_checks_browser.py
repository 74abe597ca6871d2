"""Headless Chromium on an experiment's CI gate checks: a candidate checked against two
baselines (one failing, one passing) shows both with their badges, options and reasons, at a
phone's and a desktop's width in English and Chinese, with no sideways scroll and no script
error; screenshots kept."""

import pytest

from assay.models import UserPreference
from experiments import services
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import ARTIFACTS, screenshot, sign_in
from tests.support.gate_runs import pairs, verdict_runs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gate_checks_read_at_every_width(live_server, page, user, workspace):
    runs = verdict_runs(workspace=workspace, user=user)
    baseline, candidate = runs(*pairs(down=25, up=2), name="Nightly")
    for max_drop in (0.0, 0.5):
        services.gate_decision_record(
            baseline=baseline,
            candidate=candidate,
            options={"max_drop": max_drop},
            user=user,
        )
    sign_in(page, live_server)
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/w/{workspace.slug}/experiments/{candidate.public_id}/")
            card = page.locator("#gate-checks")
            assert card.locator("tr.gate-check").count() == 2
            assert card.locator(".badge.fail").count() == 1
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(f"{language} {width}: {page.evaluate(OVERFLOWING)}")
            screenshot(page, f"gate-checks-{language}-{width}")
            card.screenshot(path=str(ARTIFACTS / f"gate-checks-card-{language}-{width}.png"))
    assert "CI 门禁检查" in page.inner_text("#gate-checks h2")
    assert not too_wide, too_wide
    assert page.console_errors == []
