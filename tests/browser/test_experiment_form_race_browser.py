"""Headless Chromium: the new-experiment form's plan requests answer out of order.

Choosing a set asks the server for the plan (and regrouped evaluator choices); checking an
evaluator right after asks again. When the first answer came back last it replaced the plan
and the evaluator choices with what the form held before the check: the evaluator was
unchecked and its mapping gone (seen as a flaky browser test under load). The form's plan
requests now share one queue in which a new one replaces the one in flight."""

import pytest

from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

IN_FLIGHT = "document.querySelectorAll('.htmx-request').length"


def wait_until_no_request_in_flight(page) -> None:
    # polled from here: the page's CSP forbids the eval that wait_for_function needs
    for _ in range(200):
        if page.evaluate(IN_FLIGHT) == 0:
            return
        page.wait_for_timeout(50)
    raise AssertionError("an htmx request stayed in flight for 10 s")


def test_a_late_answer_for_the_set_does_not_undo_the_evaluator_checked_after_it(
    live_server, page, user, workspace
):
    make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4), name="Capitals QA")
    make_evalset_version(workspace=workspace, user=user, rows=qa_rows(6), name="Support FAQ")
    check = make_code_version(workspace=workspace, user=user, name="Equal")
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/new/")
    held = []

    def hold_the_set_answer(route, request):
        if "regroup=1" in (request.post_data or ""):
            held.append(route)  # answered later, after the evaluator's request
        else:
            route.continue_()

    page.route("**/experiments/new/plan/", hold_the_set_answer)
    faq = page.locator("#id_evalset_version option", has_text="Support FAQ").get_attribute("value")
    page.select_option("#id_evalset_version", faq)
    box = page.locator(f"input[name=evaluator_versions][value='{check.public_id}']")
    box.check()
    mapping = f"#map__{check.public_id}__actual_output"
    page.wait_for_selector(mapping)
    assert held, "the set's plan request was never sent"
    for route in held:
        try:
            route.continue_()
        except Exception:  # the browser already gave it up (replaced by the newer request)
            pass
    wait_until_no_request_in_flight(page)
    page.wait_for_timeout(300)  # a late swap, if one comes, lands within a frame or two
    assert box.is_checked()
    assert page.locator(mapping).is_visible()
    assert "Support FAQ" in page.locator("#id_evalset_version option:checked").inner_text()
