"""Headless Chromium on the review page: two reviewers label a queue with the keyboard only
(1-9, j/k, Enter, s with a reason), at 390 and 1440 px in English and Chinese, with no
horizontal overflow and no script error; the owner's queue page (progress, agreement) fits
too. Screenshots kept."""

import pytest

from annotation.models import AnnotationQueue, Label, QueueItem, ReviewSlot, ScoreConfig
from assay.models import UserPreference
from tests.browser.test_widths_browser import LONG_URL, OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import screenshot, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CHAT = {
    "messages": [
        {"role": "user", "content": "Where is my parcel? Tracking " + LONG_URL},
        {"role": "assistant", "content": "It left the depot this morning."},
    ]
}


def review_queue(workspace) -> AnnotationQueue:
    """Ten items (results and a chat), reviewed twice each: yes/no, stars and an ordered tone."""
    correct = ScoreConfig.objects.create(
        workspace=workspace, name="Correct?", kind="boolean", rubric="Does it answer the question?"
    )
    tone = ScoreConfig.objects.create(
        workspace=workspace,
        name="Tone of the answer toward the customer",
        kind="categorical",
        labels=["rude", "neutral", "kind"],
        ordered=True,
    )
    queue = AnnotationQueue.objects.create(
        workspace=workspace, name="Failing rows of the nightly run", reviewers_per_item=2
    )
    stars = ScoreConfig.objects.create(
        workspace=workspace, name="Stars", kind="numeric", minimum=1, maximum=5, step=1
    )
    queue.score_configs.add(correct, stars, tone)
    judge = [{"evaluator": "Helpful", "version": "v1", "verdict": "fail", "reason": "vague"}]
    for i in range(10):
        snapshot = (
            {
                "input": {"question": f"Question {i}: " + LONG_URL},
                "output": {"answer": "A" * 300},
                "reference": {"expected": "<b>not bold</b>"},
                "row_number": i + 1,
            }
            if i % 2 == 0
            else {"input": "Where is my parcel?", "output": "Left the depot.", "conversation": CHAT}
        )
        QueueItem.objects.create(
            queue=queue, source_kind="trace", source_ref=f"{i:032x}", snapshot=snapshot, judge=judge
        )
    return queue


def reviewer_page(browser, live_server, username):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    sign_in(page, live_server, username)
    return page


def item_of(page) -> str:
    return page.get_attribute("#review", "data-item")


def press_and_wait(page, key: str) -> None:
    before = item_of(page)
    with page.expect_navigation():
        page.keyboard.press(key)
    wait_until(page, f"document.querySelector('#review')?.dataset.item !== '{before}'")


def test_two_reviewers_label_with_the_keyboard_at_both_widths_in_both_languages(
    live_server, browser, user, workspace, member
):
    queue = review_queue(workspace)
    member("ann"), member("bob")
    pages = {name: reviewer_page(browser, live_server, name) for name in ("ann", "bob")}
    url = f"{live_server.url}/w/{workspace.slug}/annotation/{queue.public_id}/review/"
    too_wide, expected, skipped = [], [], []
    for language in ("en", "zh-hans"):
        for width in (390, 1440):
            for name, page in pages.items():
                UserPreference.objects.update_or_create(
                    user=page_user(name), defaults={"language": language}
                )
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(url)
                scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
                if scroll_width > inner_width:
                    too_wide.append(f"{name} {language} {width}: {page.evaluate(OVERFLOWING)}")
                screenshot(page, f"annotation-review-{name}-{language}-{width}")
                if not skipped and name == "ann":  # s, a reason, Enter: the next item
                    skipped.append(item_of(page))
                    page.keyboard.press("s")
                    page.keyboard.type("the answer is cut off")
                    press_and_wait(page, "Enter")
                # 1 = yes on the highlighted config, which moves to the stars (a number
                # typed), j to the tone, 3 = kind, Enter.
                first = item_of(page)
                for key in ("1", "4", "j", "3"):
                    page.keyboard.press(key)
                press_and_wait(page, "Enter")
                expected.append((name, first, True, 4, "kind"))
                # j to the stars, 5, k back to the first config, 2 = no (on to the stars),
                # j to the tone, 1 = rude, Enter.
                second = item_of(page)
                for key in ("j", "5", "k", "2", "j", "1"):
                    page.keyboard.press(key)
                press_and_wait(page, "Enter")
                expected.append((name, second, False, 5, "rude"))
    slot = ReviewSlot.objects.get(item__public_id=skipped[0], reviewer__username="ann")
    assert slot.status == "skipped" and slot.skip_reason == "the answer is cut off"
    for name, item, correct, stars, tone in expected:
        labels = dict(
            Label.objects.filter(item__public_id=item, reviewer__username=name).values_list(
                "score_config__name", "value"
            )
        )
        tone_name = "Tone of the answer toward the customer"
        assert labels == {"Correct?": correct, "Stars": stars, tone_name: tone}, (name, item)
    assert all(item.labels.count() <= 6 for item in queue.items.all())  # 2 reviewers × 3 configs
    page = reviewer_page(browser, live_server, user.username)  # the owner
    too_wide += queue_page_widths(live_server, page, user, queue)
    assert not too_wide, too_wide
    assert all(p.console_errors == [] for p in [*pages.values(), page])
    assert page.locator("#queue-agreement .agreement").count() == 3


def page_user(name):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(username=name)


def queue_page_widths(live_server, page, user, queue) -> list[str]:
    """The owner's view of the queue (progress, agreement) at both widths in both languages."""
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/w/{queue.workspace.slug}/annotation/{queue.public_id}/")
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(f"queue {language} {width}: {page.evaluate(OVERFLOWING)}")
            screenshot(page, f"annotation-queue-{language}-{width}")
    return too_wide
