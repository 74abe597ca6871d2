"""Headless Chromium on the traces pages: spans sent by the OpenTelemetry SDK's exporter (long
unbroken text, hostile text, a chat, a late parent) drawn as a list and a span tree that fit a
phone (390 px) and a desktop (1440 px), with no script error; screenshots kept."""

import json

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
LONG = "https://example.com/" + "a" * 300
HOSTILE = "<img src=x onerror=alert(1)>"


def send_trace(live_server, key: str) -> str:
    provider = TracerProvider(resource=Resource.create({"service.name": "support-bot"}))
    exporter = OTLPSpanExporter(
        endpoint=f"{live_server.url}/otlp/v1/traces", headers={"Authorization": f"Bearer {key}"}
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("demo")
    messages = [
        {"role": "system", "parts": [{"type": "text", "content": "Be helpful."}]},
        {"role": "user", "parts": [{"type": "text", "content": f"Read {LONG} {HOSTILE}"}]},
    ]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": "Done."}]}]
    with tracer.start_as_current_span(f"agent {LONG}") as root:
        root.set_attribute("openinference.span.kind", "AGENT")
        root.set_attribute("session.id", "session-" + "b" * 120)
        with tracer.start_as_current_span("chat m-1") as llm:
            llm.set_attribute("gen_ai.operation.name", "chat")
            llm.set_attribute("gen_ai.request.model", "m-1")
            llm.set_attribute("gen_ai.input.messages", json.dumps(messages))
            llm.set_attribute("gen_ai.output.messages", json.dumps(answer))
            llm.set_attribute("gen_ai.usage.input_tokens", 120)
            llm.set_attribute("gen_ai.usage.output_tokens", 8)
            llm.set_attribute("big.json", json.dumps({"k": "v" * 400}))
        with tracer.start_as_current_span("search") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.call.result", HOSTILE)
        trace_id = f"{root.get_span_context().trace_id:032x}"
    provider.shutdown()
    return trace_id


def test_the_traces_pages_fit_a_phone_and_a_desktop(
    celery_worker_inproc, live_server, page, user, workspace
):
    trace_id = send_trace(live_server, ingest_key_issue(workspace=workspace, name="k").key)
    stored_spans(3)
    sign_in(page, live_server)
    base = f"{live_server.url}/w/{workspace.slug}/traces/"
    alerts = []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    too_wide = []
    for width in (390, 1440):
        page.set_viewport_size({"width": width, "height": 900})
        for name, url, ready in (
            ("traces", base, "#trace-table"),
            ("trace", f"{base}{trace_id}/", "#span-tree"),
        ):
            page.goto(url)
            page.wait_for_selector(ready)
            if name == "trace":
                for summary in page.locator("#span-tree > li > details > summary").all():
                    summary.click()
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(f"{name} at {width}: {page.evaluate(OVERFLOWING)}")
            screenshot(page, f"{'phone' if width == 390 else 'desktop'}-{name}")
    assert not too_wide, too_wide
    assert alerts == [] and page.console_errors == []
    page.goto(f"{base}{trace_id}/")
    assert page.locator(".span-row").count() == 3
    assert page.locator(".chat.conversation .msg").count() >= 2
