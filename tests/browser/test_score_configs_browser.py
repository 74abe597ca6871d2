"""Headless Chromium on the score config pages: a categorical config made through the form
(the kind's own part shown, the others hidden by its script), the list and a used config's
form at a phone's and a desktop's width in English and Chinese, with no sideways scroll and
no script error; screenshots kept."""

import pytest

from annotation.models import AnnotationQueue, Label, QueueItem, ScoreConfig
from assay.models import UserPreference
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def configs(workspace, user) -> ScoreConfig:
    """A config of each other kind, the numeric one asked by a queue and labelled with."""
    ScoreConfig.objects.create(
        workspace=workspace,
        name="Correct?",
        kind="boolean",
        pass_labels=[True],
        fail_labels=[False],
        rubric="True when the answer states the capital named in the reference; detail is fine.",
    )
    stars = ScoreConfig.objects.create(
        workspace=workspace,
        name="Helpfulness of the answer for a first-time customer",
        kind="numeric",
        minimum=1,
        maximum=5,
        step=1,
        rubric="1: useless … 5: solves it.",
    )
    ScoreConfig.objects.create(workspace=workspace, name="Why", kind="text")
    queue = AnnotationQueue.objects.create(workspace=workspace, name="Live")
    queue.score_configs.add(stars)
    item = QueueItem.objects.create(queue=queue, source_kind="trace", source_ref="0" * 32)
    Label.objects.create(item=item, score_config=stars, reviewer=user, value=4)
    return stars


def fits(page, too_wide: list, name: str) -> None:
    scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
    if scroll_width > inner_width:
        too_wide.append(f"{name}: {page.evaluate(OVERFLOWING)}")
    screenshot(page, name)


def test_a_config_is_made_in_the_form_and_the_pages_fit_in_both_languages(
    live_server, page, user, workspace
):
    sign_in(page, live_server)
    base = f"{live_server.url}/w/{workspace.slug}/annotation"
    page.goto(f"{base}/")
    page.click("#score-configs")
    page.click("#new-config")
    page.wait_for_selector("#config-categorical", state="hidden")  # boolean first: no labels
    page.select_option("[data-config-kind]", "categorical")
    assert page.locator("#config-numeric").is_hidden() and page.locator("#id_labels").is_visible()
    page.fill("#id_name", "Tone")
    page.fill("#id_labels", "rude\nneutral\nkind")
    page.check("#id_ordered")
    page.fill("#id_pass_labels", "kind")
    page.fill("#id_fail_labels", "rude")
    page.click("#config-save")
    page.wait_for_selector("#configs-table")
    tone = ScoreConfig.objects.get(name="Tone")
    assert (tone.labels, tone.ordered, tone.pass_labels) == (
        ["rude", "neutral", "kind"],
        True,
        ["kind"],
    )
    stars = configs(workspace, user)
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{base}/")  # the queues' list links the configs
            fits(page, too_wide, f"score-configs-from-queues-{language}-{width}")
            page.goto(f"{base}/configs/")
            fits(page, too_wide, f"score-configs-list-{language}-{width}")
            page.goto(f"{base}/configs/new/?kind=categorical")
            page.wait_for_selector("#config-numeric", state="hidden")
            fits(page, too_wide, f"score-configs-new-{language}-{width}")
            page.goto(f"{base}/configs/{stars.public_id}/")
            assert page.locator("#config-locked").is_visible()
            fits(page, too_wide, f"score-configs-used-{language}-{width}")
    assert not too_wide, too_wide
    assert page.console_errors == []
