"""Headless Chromium on a queue's feeds and who reviews it (issue 33): the owner follows an
online rule from the queue page (fail or unknown, 30 %), then the page with that feed, an
experiment's finished feed and the queue assigned to two members fits a phone and a desktop in
English and Chinese, with no horizontal overflow and no script error. Screenshots kept."""

import pytest

from annotation.models import AnnotationQueue, QueueFeed, ScoreConfig
from annotation.services.assignment import queue_assign
from annotation.services.feeds import feeds_sweep, queue_feed_create
from assay import services as platform
from assay.models import UserPreference
from experiments.models import Experiment
from tests.annotation.support import finished_results
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.online.support import code_rule
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_queue_page_follows_a_rule_and_fits_both_widths_in_both_languages(
    live_server, page, user, workspace
):
    config = ScoreConfig.objects.create(workspace=workspace, name="Correct?", kind="boolean")
    queue = AnnotationQueue.objects.create(
        workspace=workspace, name="Failing answers of the support bot"
    )
    queue.score_configs.add(config)
    rule = code_rule(workspace, user, name="Support bot: answers contain the reference")
    experiment, _ids = finished_results(workspace=workspace, user=user, rows=6)
    run = Experiment.objects.get(public_id=experiment)
    queue_feed_create(
        queue=queue,
        user=user,
        kind="experiment",
        source=run,
        fields={"verdicts": ["fail"], "filter": {"tag": "odd"}},
    )
    feeds_sweep()
    for name in ("ann", "bob"):
        platform.user_create(username=name, password="x" * 12)
        platform.membership_add(workspace=workspace, username=name, role="editor")
    queue_assign(queue=queue, open_to="assigned", assignees=["ann", "bob"])
    sign_in(page, live_server)
    url = f"{live_server.url}/w/{workspace.slug}/annotation/{queue.public_id}/"
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(url)
    page.locator("#queue-feeds summary").click()
    page.select_option("#feed-form select[name=source]", f"online_rule:{rule.public_id}")
    page.check("#feed-form input[value=fail]")
    page.check("#feed-form input[value=unknown]")
    page.fill("#feed-form input[name=percent]", "30")
    page.locator("#feed-form button[type=submit]").click()
    page.wait_for_selector(
        f"#feeds-table [data-feed='{QueueFeed.objects.get(rule=rule).public_id}']"
    )
    assert QueueFeed.objects.get(rule=rule).sampling_rate == 0.3
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(url)
            page.locator("#queue-assignment summary").click()
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(f"{language} {width}: {page.evaluate(OVERFLOWING)}")
            screenshot(page, f"annotation-queue-feeds-{language}-{width}")
    assert not too_wide, too_wide
    assert page.locator("#feeds-table tbody tr").count() == 2
    assert page.console_errors == []
