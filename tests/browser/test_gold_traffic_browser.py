"""Headless Chromium on a queue of live traffic: the online judge's misses on the calibration
page, each with its evaluator marked online, and one made a test case from there; the page fits
a phone and a desktop in English and Chinese with no script error; screenshots kept."""

import pytest

from assay.models import UserPreference
from evaluators.models import EvaluatorTestCase
from tests.annotation.support import Q
from tests.annotation.test_gold_traffic import judged_into_a_queue
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.online.support import code_rule, llm_span, store
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_online_judges_miss_becomes_a_test_case_from_the_calibration_page(
    live_server, page, api, user, workspace
):
    rule = code_rule(workspace, user)
    store([llm_span(workspace, output=out, expected="Paris") for out in ("Paris!", "Lyon")])
    config, made, _queue = judged_into_a_queue(api, rule)
    for _ in range(2):  # the reviewer passes both: the judge failed "Lyon"
        held = api.post(f"{Q}{made['id']}/next/").json()
        url = f"{Q}{made['id']}/items/{held['id']}/labels/"
        assert api.post(url, {"values": {config["id"]: True}}, format="json").status_code == 201
    sign_in(page, live_server)
    url = f"{live_server.url}/w/{workspace.slug}/annotation/{made['id']}/calibration/"
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(url)
            rows = page.locator("#judge-misses tbody tr")
            assert rows.count() == 1
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(f"{language} {width}: {page.evaluate(OVERFLOWING)}")
            screenshot(page, f"gold-traffic-misses-{language}-{width}")
    assert "在线" in page.inner_text("#judge-misses")
    assert not too_wide, too_wide
    with page.expect_navigation():
        page.click("#judge-misses .test-case-button")
    case = EvaluatorTestCase.objects.get()
    assert case.expected_verdict == "pass" and case.evaluator.name == "Contains answers"
    assert page.console_errors == []
