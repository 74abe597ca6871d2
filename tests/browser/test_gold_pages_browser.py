"""Headless Chromium on the gold-label pages: an owner settles a blind queue's disagreements
with the keyboard only (a number picks the label, Enter settles and opens the next item), then
reads the judges' calibration with the reviewers' alpha beside the judge's kappa, on the
queue's calibration page and the evaluator version's; the pages
fit a phone and a desktop in English and Chinese with no script error; screenshots kept."""

import pytest

from annotation.models import Adjudication
from assay.models import UserPreference
from experiments.models import Result
from tests.annotation.support import client_of
from tests.annotation.test_adjudication import item_ids, label_all, verdict_queue
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_owner_settles_disagreements_by_keyboard_and_reads_the_calibration(
    live_server, page, api, user, workspace, member
):
    made = verdict_queue(api, workspace=workspace, user=user, rows=6, n=2, blind=True)
    judged = [Result.objects.get(pk=pk).verdict == "pass" for pk in made["results"]]
    ann = [not judged[0], *judged[1:]]  # both against the judge on the first item
    bob = [not v if i in (0, 1, 3, 5) else v for i, v in enumerate(judged)]  # 5 stays open
    label_all(client_of(workspace=workspace, user=member("ann")), made, ann)
    label_all(client_of(workspace=workspace, user=member("bob")), made, bob)
    items = item_ids(made)
    sign_in(page, live_server)
    base = f"{live_server.url}/w/{workspace.slug}/annotation/{made['queue']}/"
    page.goto(base)
    page.click("#adjudicate-link")
    page.wait_for_selector("#adjudicate-form")
    for expected in (items[1], items[3]):  # 2: "No", then Enter settles and opens the next
        page.wait_for_selector(".score-field.focused")  # the keys' script is running
        assert page.get_attribute("#adjudicate", "data-item") == expected
        page.keyboard.press("2")
        with page.expect_navigation():
            page.keyboard.press("Enter")
    settled = Adjudication.objects.order_by("id")
    assert [(str(a.item.public_id), a.value) for a in settled] == [
        (items[1], False),  # "2" is the second label of a yes/no config
        (items[3], False),
    ]
    evaluator, version = made["version"].evaluator.public_id, made["version"].version
    pages = {
        "adjudicate": f"{base}adjudicate/",
        "calibration": f"{base}calibration/",
        "evaluator-version": f"{live_server.url}/w/acme/evaluators/{evaluator}/versions/{version}/",
    }
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            for name, url in pages.items():
                page.goto(url)
                scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
                if scroll_width > inner_width:
                    too_wide.append(f"{name} {language} {width}: {page.evaluate(OVERFLOWING)}")
                screenshot(page, f"gold-{name}-{language}-{width}")
    assert not too_wide, too_wide
    assert page.locator("#calibrations-table tbody tr").count() == 1  # the version's panel
    page.goto(pages["calibration"])
    assert page.locator(".test-case-button").count() == 1
    assert page.console_errors == []
