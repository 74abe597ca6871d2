"""Headless Chromium: the results grid with three evaluators — filter by one evaluator's fails,
open a row's drawer (every evaluator side by side), correct a verdict and see it in place; and
the row's number linking to the same row on the evaluation set's page."""

import pytest

from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline
from tests.support.fixtures import screenshot, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OPPOSITE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    return EvalOutput(score=1.0 if "Lyon" in output else 0.0, reason="opposite")
"""
HALF = """def exec_evaluation(turn):
    print("looked at it")
    return EvalOutput(score=0.5, reason="half marks")
"""
NO_SIDEWAYS = "document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture
def three(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(30), name="QA")
    versions = [
        make_code_version(workspace=workspace, user=user, name="Contains"),
        make_code_version(workspace=workspace, user=user, name="Opposite", source=OPPOSITE),
        make_code_version(workspace=workspace, user=user, name="Half", source=HALF),
    ]
    return run_inline(
        workspace=workspace, user=user, version=version, versions=versions, name="three evaluators"
    )


def cells(page, binding) -> list[str]:
    return page.locator(
        f"#results-table td.eval-cell[data-binding='{binding}'] .badge"
    ).all_inner_texts()


def test_filter_open_correct_in_the_grid(live_server, page, three):
    opposite = three.bindings.get(evaluator_version__evaluator__name="Opposite").pk
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/{three.public_id}/")
    assert page.locator("#results-table tbody tr").count() == 30
    assert page.locator("#results-table thead th.eval-head").count() == 3
    screenshot(page, "results-grid")

    page.select_option("#results-filters select[name=evaluator]", str(opposite))
    page.select_option("#results-filters select[name=verdict]", "fail")
    page.click("#results-filters button[type=submit]")
    page.wait_for_url("**verdict=fail**")
    assert page.locator("#results-table tbody tr").count() == 15
    assert set(cells(page, opposite)) == {"fail"}
    numbers = page.locator("#results-table .open-item").all_inner_texts()
    assert numbers[:3] == ["1", "3", "5"]

    row = page.locator("#results-table tbody tr").first
    item = row.get_attribute("data-item-id")
    row.locator(".open-item").click()
    page.wait_for_selector("#result-drawer")
    drawer = page.locator("#result-drawer")
    assert drawer.locator(".drawer-eval").count() == 3
    assert "looked at it" in drawer.inner_text() and "half marks" in drawer.inner_text()
    screenshot(page, "results-grid-drawer")

    column = drawer.locator(f".drawer-eval[data-binding='{opposite}']")
    column.locator(".correct-form summary").click()
    column.locator("select[name$=verdict]").select_option("pass")
    column.locator("textarea[name$=note]").fill("Paris is what we asked for")
    column.locator(".correct-submit").click()
    page.wait_for_selector("#correction-saved")
    cell = f"tr[data-item-id='{item}'] td.eval-cell[data-binding='{opposite}']"
    wait_until(page, f'document.querySelector("{cell} .original") !== null')
    assert page.locator(f"{cell} .badge").inner_text() == "pass"
    assert page.locator(f"{cell} .original").first.inner_text() == "corrected · was fail"
    assert page.locator(f"tr[data-item-id='{item}']").count() == 1
    card = f".eval-card[data-binding='{opposite}'] .summary-line"
    wait_until(page, f"document.querySelector(\"{card}\").innerText.startsWith('16 pass')")
    screenshot(page, "results-grid-corrected")
    assert page.console_errors == []


def test_the_grid_and_drawer_fit_a_phone(live_server, page, three):
    page.set_viewport_size({"width": 390, "height": 844})
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/{three.public_id}/")
    assert page.evaluate(NO_SIDEWAYS)
    screenshot(page, "results-grid-phone")
    page.locator("#results-table .open-item").first.click()
    page.wait_for_selector("#result-drawer")
    assert page.evaluate(NO_SIDEWAYS)
    page.screenshot(path=str(screenshot(page, "results-grid-drawer-phone")), full_page=False)


def test_a_rows_number_leads_to_the_same_row_in_the_set(live_server, page, three):
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/{three.public_id}/?page=1")
    row = page.locator("#results-table tbody tr").nth(27)  # row 28: page 2 of the set's table
    item, number = row.get_attribute("data-item-id"), row.locator(".open-item").inner_text()
    row.locator("a.evalset-row").click()
    page.wait_for_url(f"**#item-{item}")
    target = page.locator(f"#rows-table tr#item-{item}")
    assert target.locator(".row-number").inner_text() == number == "28"
    assert "page=2" in page.url
    assert page.evaluate(f"document.querySelector('#item-{item}').matches(':target')")
    screenshot(page, "evalset-row-linked")
