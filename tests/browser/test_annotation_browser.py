"""Headless Chromium on the annotation queues' list: it fits a phone and a desktop in English
and Chinese with no script error, empty and with queues; screenshots kept."""

import pytest

from annotation.models import AnnotationQueue, QueueItem, ScoreConfig
from assay.models import UserPreference
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def queues(workspace) -> None:
    """Two queues, one blind, with configs of long names (they must wrap on a phone)."""
    tone = ScoreConfig.objects.create(
        workspace=workspace,
        name="Tone of the answer toward the customer",
        kind="categorical",
        labels=["rude", "neutral", "kind"],
        ordered=True,
    )
    correct = ScoreConfig.objects.create(workspace=workspace, name="Correct?", kind="boolean")
    for name, blind in (("Failing rows of the nightly regression run", True), ("Live", False)):
        queue = AnnotationQueue.objects.create(
            workspace=workspace, name=name, reviewers_per_item=3, blind=blind
        )
        queue.score_configs.add(tone, correct)
        QueueItem.objects.bulk_create(
            QueueItem(queue=queue, source_kind="trace", source_ref=f"{i:032x}") for i in range(12)
        )


def test_the_queue_list_fits_a_phone_and_a_desktop_in_both_languages(
    live_server, page, user, workspace
):
    sign_in(page, live_server)
    too_wide = []
    for state in ("empty", "queues"):
        if state == "queues":
            queues(workspace)
        for language in ("en", "zh-hans"):
            UserPreference.objects.update_or_create(user=user, defaults={"language": language})
            for width in (390, 1440):
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(f"{live_server.url}/w/{workspace.slug}/annotation/")
                scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
                if scroll_width > inner_width:
                    too_wide.append(f"{state} {language} {width}: {page.evaluate(OVERFLOWING)}")
                screenshot(page, f"annotation-queues-{state}-{language}-{width}")
    assert not too_wide, too_wide
    assert page.locator("#queues-table tbody tr").count() == 2
    assert page.console_errors == []
