"""Headless Chromium on a pairwise queue's review page: the two outputs side by side at 1440 px
and one above the other at 390 px, in English and Chinese, with no horizontal overflow and no
script error; a reviewer picks with the keyboard only (1 left, 2 right, 3 tie, Enter) and each
label stores the side shown at that place. Screenshots kept."""

import pytest

from annotation.models import AnnotationQueue, Label, QueueItem, ReviewSlot, ScoreConfig
from assay.models import UserPreference
from tests.browser.test_annotation_review_browser import page_user, press_and_wait, reviewer_page
from tests.browser.test_widths_browser import LONG_URL, OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KEYS = {"1": "left", "2": "right", "3": "tie"}


def pairwise_queue(workspace) -> AnnotationQueue:
    """Twelve pairs of a support bot's answers (long lines, Chinese, markup), judged."""
    better = ScoreConfig.objects.create(
        workspace=workspace,
        name="Which answer helps the customer more?",
        kind="pairwise",
        rubric="Prefer the answer that solves the problem; a tie when both do equally well.",
    )
    queue = AnnotationQueue.objects.create(
        workspace=workspace, name="Support bot: new prompt against the old", kind="pairwise"
    )
    queue.score_configs.add(better)
    judge = [
        {
            "evaluator": "Which is better",
            "version": "1.0.0",
            "outcome": "B",
            "reason": "B is specific",
        }
    ]
    for i in range(12):
        snapshot = {
            "input": {"question": f"我的包裹在哪里？订单 {i} · tracking {LONG_URL}"},
            "reference": {"reference_output": "It left the depot this morning."},
            "output_a": f"Old prompt {i}: please wait. " + "<b>not bold</b> " * 20,
            "output_b": f"New prompt {i}: 您的包裹今天早上已离开仓库，预计明天送达。" + LONG_URL,
            "row_number": i + 1,
            "sides": {"A": {"name": "old prompt"}, "B": {"name": "new prompt"}},
        }
        QueueItem.objects.create(
            queue=queue,
            source_kind="pairwise_result",
            source_ref=str(i),
            snapshot=snapshot,
            judge=judge,
        )
    return queue


def test_a_reviewer_compares_pairs_with_the_keyboard_at_both_widths_in_both_languages(
    live_server, browser, workspace, member
):
    queue = pairwise_queue(workspace)
    member("ann")
    page = reviewer_page(browser, live_server, "ann")
    url = f"{live_server.url}/w/{workspace.slug}/annotation/{queue.public_id}/review/"
    too_wide, picked, stacked = [], [], {}
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(
            user=page_user("ann"), defaults={"language": language}
        )
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(url)
            scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
            if scroll_width > inner_width:
                too_wide.append(f"{language} {width}: {page.evaluate(OVERFLOWING)}")
            left, right = (
                page.locator("#side-left").bounding_box(),
                page.locator("#side-right").bounding_box(),
            )
            stacked[width] = right["y"] >= left["y"] + left["height"]
            screenshot(page, f"annotation-pairwise-review-{language}-{width}")
            for key in ("1", "2", "3") if width == 1440 else ("1",):
                item = page.get_attribute("#review", "data-item")
                page.keyboard.press(key)
                press_and_wait(page, "Enter")
                picked.append((item, KEYS[key]))
    assert stacked == {390: True, 1440: False}  # side by side on a desktop only
    for item, place in picked:
        swapped = ReviewSlot.objects.get(item__public_id=item).swapped
        expected = {"left": "B" if swapped else "A", "right": "A" if swapped else "B", "tie": "tie"}
        assert Label.objects.get(item__public_id=item).value == expected[place], (item, place)
    assert not too_wide, too_wide
    assert page.console_errors == []
