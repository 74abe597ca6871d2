"""Headless Chromium on the traces list's filters and on sessions: two turns of one session sent
by the OpenTelemetry SDK's exporter (a long session id, hostile and long unbroken text), drawn
as the sessions list and a chat that fit a phone (390 px) and a desktop (1440 px), in English
and Chinese, with no script error; screenshots kept."""

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import screenshot, sign_in
from tests.traces.test_real_clients import stored_spans
from traces.services import ingest_key_issue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SESSION = "conversation-" + "c" * 100
HOSTILE = "<img src=x onerror=alert(1)>"
TURNS = [
    ("Where is my parcel?", "It left yesterday " + "x" * 200),
    (f"And the invoice? {HOSTILE}", "Sent to ann@example.com."),
]


def send_turns(live_server, key: str) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": "support-bot"}))
    exporter = OTLPSpanExporter(
        endpoint=f"{live_server.url}/otlp/v1/traces", headers={"Authorization": f"Bearer {key}"}
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("sessions")
    for question, answer in TURNS:
        with tracer.start_as_current_span("support turn") as root:
            root.set_attribute("openinference.span.kind", "AGENT")
            root.set_attribute("gen_ai.conversation.id", SESSION)
            root.set_attribute("input.value", question)
            root.set_attribute("output.value", answer)
            with tracer.start_as_current_span("chat") as llm:
                llm.set_attribute("gen_ai.operation.name", "chat")
    provider.shutdown()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_sessions_and_filters_fit_a_phone_and_a_desktop(
    celery_worker_inproc, live_server, page, user, workspace, language
):
    send_turns(live_server, ingest_key_issue(workspace=workspace, name="k").key)
    stored_spans(4)
    page.context.set_extra_http_headers({"Accept-Language": language})
    sign_in(page, live_server)
    base = f"{live_server.url}/w/{workspace.slug}/traces/"
    alerts = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    too_wide = []
    pages = (
        ("filters", f"{base}?min_tokens=10&max_tokens=1", "#filter-errors"),
        ("sessions", f"{base}sessions/", "#session-table"),
        ("session", f"{base}sessions/{SESSION}/", "#session-chat"),
    )
    for width in (390, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        for name, url, ready in pages:
            page.goto(url)
            page.wait_for_selector(ready)
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(f"{name} at {width}: {page.evaluate(OVERFLOWING)}")
            kind = "phone" if width == 390 else "desktop"
            screenshot(page, f"{kind}-{name}-{language}")
    assert not too_wide, too_wide
    assert alerts == [] and page.console_errors == []
    page.goto(f"{base}sessions/{SESSION}/")
    assert page.locator(".session-turn").count() == 2
    assert page.locator(".session-turn .msg-user").first.inner_text().endswith(TURNS[0][0])
    assert HOSTILE in page.locator(".session-turn .msg-user").nth(1).inner_text()
    page.locator(".session-turn .turn-head a").first.click()
    page.wait_for_selector("#span-tree")
