"""Headless Chromium: traces sent by the OpenTelemetry SDK's exporter are selected on the
traces list, added to a set through the "Add to evalset" dialog, and found on the set's draft
with their links back; in English and Chinese, at 1440 and 390 px; screenshots kept."""

import pytest

from assay.models import UserPreference
from evalsets.services import evalset_create
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import open_dialog, screenshot, sign_in
from tests.traces.test_to_evalset import COLUMNS, draft, send_turns

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SUMMARY = {
    "en": "3 rows added, 1 duplicate skipped.",
    "zh-hans": "已添加 0 行，跳过 4 行重复。",
}


def test_add_traces_to_an_evalset_from_the_list(
    celery_worker_inproc, live_server, page, user, workspace
):
    traces = send_turns(live_server, workspace)
    evalset = evalset_create(workspace=workspace, user=user, name="from prod", columns=COLUMNS)
    sign_in(page, live_server)
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (1440, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/w/{workspace.slug}/traces/")
            for trace_id in traces:
                page.check(f"input[name=trace_id][value='{trace_id}']")
            open_dialog(page, "#open-to-evalset", "#to-evalset-dialog")
            assert page.locator("#map-question").input_value() == "input"
            shot = f"{language}-{width}"
            screenshot(page, f"to-evalset-dialog-{shot}")
            page.click("#confirm-to-evalset")
            summary = page.wait_for_selector("#to-evalset-summary").inner_text()
            if width == 1440:
                assert SUMMARY[language] in summary
            screenshot(page, f"to-evalset-report-{shot}")
            page.click("#to-evalset-draft")
            page.wait_for_selector("#rows-table")
            assert page.locator("#rows-table .source-link").count() == 3
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(f"draft {shot}: {page.evaluate(OVERFLOWING)}")
            screenshot(page, f"to-evalset-draft-{shot}")
    assert len(draft(evalset)) == 3
    page.click("#rows-table .source-link >> nth=0")
    page.wait_for_selector("#span-tree")
    assert traces[0] in page.url
    assert not too_wide, too_wide
    assert page.console_errors == []
