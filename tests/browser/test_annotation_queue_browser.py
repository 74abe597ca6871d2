"""Headless Chromium on human review end to end (issue 33): a blind queue of an experiment's
twenty failing rows, two reviewers labelling every item with the keyboard only, the owner's
queue page with their agreement (alpha with its interval, kappa for the pair), an adjudicator
settling the disagreements with the keyboard and the judge's calibration from the gold labels;
and the review page with a tool-call trajectory and with a trace's span tree, at 390 and 1440 px in
English and Chinese, with no horizontal overflow and no script error. Screenshots kept."""

import json

import pytest
from django.utils import timezone

from annotation import services
from annotation.models import Adjudication, AnnotationQueue, Label, QueueItem, ScoreConfig
from annotation.selectors import queue_disagreements, result_items
from assay.models import UserPreference
from experiments.models import Result
from tests.browser.test_widths_browser import LONG_URL, OVERFLOWING, SCROLL_WIDTH
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline
from tests.support.fixtures import screenshot, sign_in, wait_until
from traces.ingest.storing import rows_insert
from traces.models import Span

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROWS = 40  # qa_rows: every odd row fails the containment check, so twenty fail
AGREE_YES = {0, 5, 10, 15, 19}  # items (in the queue's order) both reviewers call correct
DISAGREE = {3, 8, 14}  # the items bob calls correct and ann does not


def failing_rows_queue(workspace, user) -> AnnotationQueue:
    """A blind queue, two reviewers per item, of the twenty failing results of a finished run."""
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    judge = make_code_version(workspace=workspace, user=user)
    experiment = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=judge
    )
    failing = Result.objects.filter(experiment=experiment, verdict="fail").order_by("position")
    assert failing.count() == 20
    correct = ScoreConfig.objects.create(
        workspace=workspace,
        name="Correct?",
        kind="boolean",
        rubric="Does it name the capital?",
        pass_labels=[True],
        fail_labels=[False],
    )
    helpful = ScoreConfig.objects.create(
        workspace=workspace, name="Helpfulness", kind="numeric", minimum=1, maximum=5, step=1
    )
    queue = AnnotationQueue.objects.create(
        workspace=workspace, name="Failing rows", reviewers_per_item=2, blind=True
    )
    queue.score_configs.add(correct, helpful)
    found = result_items(
        workspace=workspace,
        experiment_id=experiment.public_id,
        result_ids=list(failing.values_list("pk", flat=True)),
    )
    services.queue_items_add(queue=queue, items=found["items"])
    return queue


def signed_in(browser, live_server, username):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    sign_in(page, live_server, username)
    return page


def language_of(user, language: str) -> None:
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})


def item_of(page) -> str | None:
    return page.evaluate("document.querySelector('#review')?.dataset.item || null")


def label_by_keyboard(page, correct: bool, helpful: int) -> str:
    """1 = yes, 2 = no on the first config (the focus moves on to the number), the number
    typed, Enter: the page saves and shows the next item (or nothing left)."""
    item = item_of(page)
    page.keyboard.press("1" if correct else "2")
    page.keyboard.type(str(helpful))
    with page.expect_navigation():
        page.keyboard.press("Enter")
    wait_until(page, f"document.querySelector('#review')?.dataset.item !== '{item}'")
    return item


def overflow(page, name: str) -> list[str]:
    scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
    return [f"{name}: {page.evaluate(OVERFLOWING)}"] if scroll_width > inner_width else []


def test_two_reviewers_work_a_queue_of_failing_rows_by_keyboard_then_agreement(
    live_server, browser, user, workspace, member
):
    queue = failing_rows_queue(workspace, user)
    reviewers = {name: member(name) for name in ("ann", "bob")}
    order = {str(i.public_id): n for n, i in enumerate(queue.items.order_by("id"))}
    url = f"{live_server.url}/w/{workspace.slug}/annotation/{queue.public_id}/"
    too_wide, typed = [], {}
    for name, account in reviewers.items():
        page = signed_in(browser, live_server, name)
        language_of(account, "zh-hans" if name == "bob" else "en")
        page.set_viewport_size({"width": 390 if name == "bob" else 1440, "height": 900})
        page.goto(url + "review/")
        for number in range(20):
            if number == 0:
                too_wide += overflow(page, f"{name} review")
                screenshot(page, f"annotation-queue-flow-review-{name}")
                text = page.inner_text("#review")
                assert "Lyon" in text and 'id="judge"' not in page.content()  # blind
                assert page.locator("#item-source").count() == 0
            index = order[item_of(page)]
            correct = index in AGREE_YES or (name == "bob" and index in DISAGREE)
            typed[(name, label_by_keyboard(page, correct, 3 if correct else 1))] = correct
        assert page.locator("#nothing-left").count() == 1
        assert page.console_errors == []
    for (name, item), correct in typed.items():
        values = dict(
            Label.objects.filter(item__public_id=item, reviewer__username=name).values_list(
                "score_config__name", "value"
            )
        )
        assert values == {"Correct?": correct, "Helpfulness": 3 if correct else 1}
    assert len(queue_disagreements(queue=queue)) == len(DISAGREE)
    owner = signed_in(browser, live_server, user.username)
    for language in ("en", "zh-hans"):
        language_of(user, language)
        for width in (390, 1440):
            owner.set_viewport_size({"width": width, "height": 900})
            owner.goto(url)
            too_wide += overflow(owner, f"queue {language} {width}")
            screenshot(owner, f"annotation-queue-flow-agreement-{language}-{width}")
    agreement = owner.inner_text("#queue-agreement")
    assert agreement.count("α = ") == 2 and "ann · bob" in agreement
    assert "[" in agreement  # alpha's bootstrap interval
    assert "20 / 20" in owner.inner_text("#queue-progress")
    too_wide += adjudicate_by_keyboard(browser, live_server, member, queue, url)
    too_wide += calibration_pages(owner, user, url)
    assert not too_wide, too_wide
    assert owner.console_errors == []


def adjudicate_by_keyboard(browser, live_server, member, queue, url) -> list[str]:
    """cai, whom the queue names, settles each disagreement: 2 = no on the yes/no config (on to
    the number), 2 typed, Enter: the next waiting item, until nothing waits."""
    queue.adjudicators.add(member("cai"))
    page = signed_in(browser, live_server, "cai")
    page.set_viewport_size({"width": 390, "height": 900})
    page.goto(url + "adjudicate/")
    too_wide = overflow(page, "adjudicate 390")
    screenshot(page, "annotation-queue-flow-adjudicate-en-390")
    assert page.locator("#labels-table tbody tr").count() == 2  # ann's and bob's, blind or not
    for _ in DISAGREE:
        item = page.get_attribute("#adjudicate", "data-item")
        page.keyboard.press("2")
        page.keyboard.type("2")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        wait_until(page, f"document.querySelector('#adjudicate')?.dataset.item !== '{item}'")
    assert page.locator("#nothing-waiting").count() == 1 and page.console_errors == []
    assert queue_disagreements(queue=queue) == []
    settled = Adjudication.objects.filter(item__queue=queue, adjudicator__username="cai")
    assert sorted(settled.values_list("value", flat=True)) == [False] * 3 + [2] * 3
    return too_wide


def calibration_pages(owner, user, url) -> list[str]:
    """The judge against the twenty gold labels: it failed the five the reviewers called
    correct."""
    too_wide = []
    for language in ("en", "zh-hans"):
        language_of(user, language)
        for width in (390, 1440):
            owner.set_viewport_size({"width": width, "height": 900})
            owner.goto(url + "calibration/")
            too_wide += overflow(owner, f"calibration {language} {width}")
            screenshot(owner, f"annotation-queue-flow-calibration-{language}-{width}")
    assert "Contains" in owner.inner_text("main")
    assert owner.locator("#judge-misses tbody tr").count() == len(AGREE_YES)
    return too_wide


TRACE = "ab" * 16
STEPS = {
    "steps": [
        {"type": "tool_call", "name": "lookup_order", "arguments": {"order": 1042},
         "output": {"status": "shipped", "tracking": LONG_URL}, "status": "ok"},
        {"type": "tool_call", "name": "issue_refund", "arguments": {"order": 1042},
         "status": "error", "error": "timed out after 30 s"},
        {"type": "message", "role": "assistant", "content": "Your refund is on its way."},
    ]
}  # fmt: skip


def agent_items(workspace) -> AnnotationQueue:
    """An open queue: an agent's answer with its trajectory, and a stored trace."""
    now = timezone.now()
    common = {"workspace": workspace, "trace_id": TRACE, "start_time": now, "end_time": now}
    rows_insert(
        [
            Span(span_id="cd" * 8, name="support-agent", kind="agent", duration_ms=840,
                 input_text="Where is order 1042?", output_text="It shipped: " + LONG_URL,
                 received_at=now, **common),
            Span(span_id="ef" * 8, parent_span_id="cd" * 8, name="lookup_order", kind="tool",
                 input_text='{"order": 1042}', output_text='{"status": "shipped"}',
                 duration_ms=120, received_at=now,
                 attributes={"gen_ai.tool.name": "lookup_order"}, **common),
        ]
    )  # fmt: skip
    correct = ScoreConfig.objects.create(workspace=workspace, name="Correct?", kind="boolean")
    queue = AnnotationQueue.objects.create(workspace=workspace, name="Agent answers")
    queue.score_configs.add(correct)
    snapshot = {
        "input": {"question": {"content_type": "Text", "text": "Refund order 1042, please."}},
        "output": {
            "actual_output": {"content_type": "Text", "text": "Your refund is on its way."},
            "trajectory": {"content_type": "Text", "text": json.dumps(STEPS)},
        },
        "row_number": 7,
    }
    QueueItem.objects.create(
        queue=queue, source_kind="experiment_result", source_ref="0", snapshot=snapshot
    )
    QueueItem.objects.create(
        queue=queue,
        source_kind="trace",
        source_ref=TRACE,
        snapshot={"input": "Where is order 1042?", "output": "It shipped."},
    )
    return queue


def test_the_review_page_shows_a_trajectory_and_a_span_tree_at_both_widths(
    live_server, browser, user, workspace, member
):
    queue = agent_items(workspace)
    ann = member("ann")
    page = signed_in(browser, live_server, "ann")
    url = f"{live_server.url}/w/{workspace.slug}/annotation/{queue.public_id}/review/"
    too_wide = []
    for kind in ("trajectory", "trace"):
        for language in ("en", "zh-hans"):
            language_of(ann, language)
            for width in (390, 1440):
                page.set_viewport_size({"width": width, "height": 900})
                page.goto(url)
                if kind == "trace":
                    page.click("#span-tree > li:nth-child(2) > details > summary")  # the tool call
                too_wide += overflow(page, f"{kind} {language} {width}")
                screenshot(page, f"annotation-review-{kind}-{language}-{width}")
        if kind == "trajectory":
            assert page.locator("#trajectory > li").count() == 3
            assert "issue_refund" in page.inner_text("#trajectory")
            label_by_keyboard_only_choice(page)
    assert page.locator("#span-tree > li").count() == 2
    assert "lookup_order" in page.inner_text("#span-tree")
    assert not too_wide, too_wide
    assert page.console_errors == []


def label_by_keyboard_only_choice(page) -> None:
    item = item_of(page)
    page.keyboard.press("1")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    wait_until(page, f"document.querySelector('#review')?.dataset.item !== '{item}'")
