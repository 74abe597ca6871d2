"""Headless Chromium: an owner adds a webhook in Settings → Webhooks (its secret shown once),
sends a test event that a real worker delivers to a local receiver, and reads the delivery
log; at 1440 and 390 px, in English and Chinese, with no page wider than the screen and no
script error; screenshots kept."""

import pytest
from standardwebhooks import Webhook

from assay.models import UserPreference
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.notifications.receiver import Receiver
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
TEXTS = {  # the tab, the test button, a delivered row's status
    "en": ("Webhooks", "Send test event", "succeeded"),
    "zh-hans": ("Webhook", "发送测试事件", "成功"),
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_webhook_with_a_test_event(
    celery_worker_inproc, live_server, page, user, workspace, language
):
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_in(page, live_server)
    tab, send, succeeded = TEXTS[language]
    too_wide = []
    with Receiver(200) as receiver:
        for width in (1440, 390):
            page.set_viewport_size({"width": width, "height": 900})
            shot = f"webhooks-{language}-{width}"
            page.goto(f"{live_server.url}/w/acme/settings/webhooks/")
            assert tab in page.inner_text("nav.tabs")
            page.fill("#id_url", receiver.url + "/" + "long-path-segment" * 8)
            page.select_option("#id_format", "feishu")
            page.check("input[name=events][value='experiment.completed']")
            page.check("input[name=events][value='import.failed']")
            page.fill("#id_description", "Feishu group: evals")
            page.click("form button.primary")
            page.wait_for_selector("#created-webhook")
            secret = page.inner_text("#webhook-secret").strip()
            assert secret.startswith("whsec_")
            _fits(page, f"list at {width}", too_wide)
            screenshot(page, f"{shot}-created")

            page.click("#created-webhook a")
            page.click("#send-test")
            page.wait_for_selector("#deliveries")
            for _ in range(50):  # the worker delivers it; the page shows the log as it is
                if succeeded in page.inner_text("#deliveries"):
                    break
                page.wait_for_timeout(200)
                page.reload()
            assert succeeded in page.inner_text("#deliveries")
            assert send in page.inner_text("body")
            page.click("#deliveries details summary")
            _fits(page, f"webhook at {width}", too_wide)
            screenshot(page, f"{shot}-detail")
            got = receiver.received[-1]
            body = Webhook(secret).verify(got.body, got.headers)
            assert body["msg_type"] == "interactive"
    assert not too_wide, too_wide
    assert not errors, errors


def _fits(page, where: str, too_wide: list) -> None:
    scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
    if scroll_width > inner_width:
        too_wide.append(f"{where}: {page.evaluate(OVERFLOWING)}")
