"""Headless Chromium on online evaluation: spans from the OpenTelemetry SDK's exporter, a rule
started from a trace's span ("score spans like this"), its mapping chosen, new traffic scored
by the worker, the monitor read; the pages fit a phone and a desktop in English and Chinese,
with no script error; screenshots kept."""

import time

import pytest

from assay.models import UserPreference
from online import tasks
from online.models import OnlineOutcome, OnlineRule
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.online.support import send_llm_spans
from tests.support.factories import make_code_version
from tests.support.fixtures import screenshot, sign_in
from traces.models import Span
from traces.services import ingest_key_issue

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def wait_for(condition, what: str):
    for _ in range(1200):
        if found := condition():
            return found
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_rule_from_a_span_scores_new_traffic_and_its_monitor_reads(
    celery_worker_inproc, live_server, page, user, workspace, settings
):
    settings.ASSAY_ONLINE_SWEEP_LAG_S = 0
    make_code_version(workspace=workspace, user=user, name="Mentions the parcel")
    key = ingest_key_issue(workspace=workspace, name="bot").key
    trace_id = send_llm_spans(
        live_server, key, "production", [("Your parcel is in Lyon.", "parcel")]
    )
    wait_for(lambda: Span.objects.filter(trace_id=trace_id).exists(), "the first span")
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/{workspace.slug}/traces/{trace_id}/")
    page.click("#score-like-this button[type=submit]")
    page.wait_for_selector("#rule-form")
    assert '"value": "llm"' in page.input_value("#id_filter")
    page.fill("#id_sampling_percent", "100")
    page.check("#rule-form input[name=evaluator_versions]")
    page.click("#choose-mapping")
    page.select_option("select[name$=':reference_output']", "attribute:expected")
    page.click("#create-rule")
    page.wait_for_selector(".monitor-table")
    rule = OnlineRule.objects.get()
    answers = [("Your parcel arrives today.", "parcel")] * 7 + [("I cannot help.", "parcel")] * 3
    send_llm_spans(live_server, key, "production", answers)
    wait_for(lambda: Span.objects.count() == 11, "11 spans")
    tasks.sweep_rules.delay()
    wait_for(lambda: OnlineOutcome.objects.filter(rule=rule).count() == 10, "10 outcomes")
    alerts, too_wide = [], []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            for name, path in (
                ("rule", f"online/{rule.public_id}/"),
                ("rules", "online/"),
                ("trace", f"traces/{trace_id}/"),
            ):
                page.goto(f"{live_server.url}/w/{workspace.slug}/{path}")
                scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
                if scroll_width > inner_width:
                    too_wide.append(f"{name} {language} {width}: {page.evaluate(OVERFLOWING)}")
                screenshot(page, f"online-{name}-{language}-{width}")
    assert not too_wide, too_wide
    assert alerts == [] and page.console_errors == []
    UserPreference.objects.update_or_create(user=user, defaults={"language": "en"})
    page.goto(f"{live_server.url}/w/{workspace.slug}/online/{rule.public_id}/")
    today = page.locator(".monitor-table tbody tr").first
    assert "70.0%" in today.inner_text()  # 7 of 10 decided pass
    assert page.locator("#outcomes-table tbody tr").count() == 10
