"""Headless Chromium on the demo's traces, sent by the demo agent through the OpenTelemetry
SDK's exporter to the live server: the traces listed, a trace's waterfall, each span's input
and output drawn as what it is (transcript, tool call, retrieved documents), and Settings →
Ingest keys with the demo's key; at 1440 and 390 px, in English and Chinese, with no page
wider than the screen and no script error; screenshots kept."""

import pytest

from assay.models import UserPreference
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import screenshot, sign_in
from tests.traces.test_real_clients import stored_spans
from traces.demo import demo_send
from traces.models import Span, SpanKind

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TEXTS = {  # what each language's pages say
    "en": ("2 documents retrieved", "Tool call", "Ingest keys"),
    "zh-hans": ("检索到 2 个文档", "工具调用", "采集密钥"),
}


def open_every_span(page) -> None:
    for summary in page.locator("#span-tree > li > details > summary").all():
        summary.click()


def check_fits(page, where: str, too_wide: list) -> None:
    scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
    if scroll_width > inner_width:
        too_wide.append(f"{where}: {page.evaluate(OVERFLOWING)}")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_demo_traces_in_the_browser(
    celery_worker_inproc, live_server, page, user, workspace, language
):
    assert demo_send(workspace=workspace, base_url=live_server.url) == 12
    stored_spans(12)
    tool = Span.objects.get(kind=SpanKind.TOOL, status="error")
    trace_id = Span.objects.filter(kind=SpanKind.RETRIEVER).earliest("start_time").trace_id
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    sign_in(page, live_server)
    base = f"{live_server.url}/w/{workspace.slug}"
    documents, tool_call, keys_tab = TEXTS[language]
    too_wide = []
    for width in (1440, 390):
        page.set_viewport_size({"width": width, "height": 900})
        shot = f"c-{language}-{width}"
        page.goto(f"{base}/traces/")
        page.wait_for_selector("#trace-table")
        assert page.locator("#trace-table tbody tr").count() == 3
        check_fits(page, f"list at {width}", too_wide)
        screenshot(page, f"{shot}-traces")

        page.goto(f"{base}/traces/{trace_id}/")
        page.wait_for_selector("#span-tree")
        assert page.locator(".span-bar > span").count() == 4  # the waterfall: a bar a span
        open_every_span(page)
        assert page.locator(".span-document").count() == 2
        assert documents in page.inner_text("#span-tree")
        assert tool_call in page.inner_text("#span-tree")
        assert page.locator(".chat.conversation .msg").count() >= 3  # system, user, answer
        check_fits(page, f"trace at {width}", too_wide)
        screenshot(page, f"{shot}-trace")

        page.goto(f"{base}/traces/{tool.trace_id}/")
        open_every_span(page)
        assert page.locator(".badge.fail").count() >= 1
        screenshot(page, f"{shot}-failed-trace")

        page.goto(f"{base}/settings/ingest-keys/")
        assert keys_tab in page.inner_text("nav.tabs")
        assert "Demo agent" in page.inner_text("#ingest-keys")
        page.fill("#id_name", "checkout service")
        page.click("button.primary")
        page.wait_for_selector("#issued-ingest-key")
        assert "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20asy_ingest_" in page.inner_text(
            "#otel-environment"
        )
        check_fits(page, f"ingest keys at {width}", too_wide)
        screenshot(page, f"{shot}-ingest-keys")
    assert not too_wide, too_wide
    assert page.console_errors == []
