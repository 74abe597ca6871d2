"""Headless Chromium: a finished experiment's dashboard, failures filter, row drawer, human
correction changing the counts; and hostile text staying inert on every page."""

import pytest

from experiments import scoring as engine
from experiments import services
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import screenshot, sign_in, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAYLOADS = [
    '<script>window.__xss = "script"</script>',
    "<img src=x onerror=\"window.__xss = 'img'\">",
    "<a href=\"javascript:window.__xss='link'\">click</a>",
]
HOSTILE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    print(output)
    return EvalOutput(score=0.0, reason="echo: " + output)
"""


def finished(workspace, user, rows, source=None, name="QA"):
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, name=name)
    kwargs = {"source": source, "name": f"Echo {PAYLOADS[0]}"} if source else {}
    ev = make_code_version(workspace=workspace, user=user, **kwargs)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=f"run {name}",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
    )
    services.experiment_launch(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def test_dashboard_filter_open_and_correct(live_server, page, user, workspace):
    experiment = finished(workspace, user, qa_rows(60, error_every=10))
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/{experiment.public_id}/")
    card = page.locator(".eval-card").first
    assert card.locator(".summary-line").inner_text().startswith("30 pass, 24 fail, 6 unknown")
    assert "95% CI" in card.inner_text()
    screenshot(page, "dashboard")
    page.select_option("#results-filters select[name=verdict]", "fail")
    page.click("#results-filters button[type=submit]")
    page.wait_for_url("**verdict=fail**")
    badges = page.locator("#results-table tbody .badge").all_inner_texts()
    assert badges and set(badges) == {"fail"}
    opened = page.locator("#results-table tbody tr").first.get_attribute("data-item-id")
    page.locator("#results-table .open-item").first.click()
    page.wait_for_selector("#result-drawer")
    assert "The capital is Lyon" in page.locator("#result-drawer").inner_text()
    screenshot(page, "dashboard-drawer")
    page.click("#result-drawer .correct-form summary")
    page.select_option("#result-drawer .correct-form select[name$=verdict]", "pass")
    page.fill("#result-drawer .correct-form textarea[name$=note]", "Reviewer accepts Lyon here")
    page.click("#result-drawer .correct-submit")
    page.wait_for_selector("#result-drawer .correction-note")
    wait_until(
        page,
        "document.querySelector('.eval-card .summary-line')"
        ".innerText.startsWith('31 pass, 23 fail')",
    )
    assert "1 human correction" in page.locator(".eval-card").first.inner_text()
    # the corrected row changes in place: the new verdict, with the evaluator's beside it
    row = page.locator(f"#results-table tr[data-item-id='{opened}']")
    wait_until(page, f"document.querySelector(\"tr[data-item-id='{opened}'] .original\") !== null")
    assert row.locator(".badge").inner_text() == "pass"
    assert row.locator(".eval-cell .original").inner_text() == "corrected · was fail"
    assert page.locator(f"tr[data-item-id='{opened}']").count() == 1
    screenshot(page, "dashboard-corrected")
    assert page.console_errors == []


def test_hostile_text_is_inert_on_every_page(live_server, page, user, workspace):
    rows = [
        {"input": p, "actual_output": p, "reference_output": p, "tags": ["<b>t</b>"]}
        for p in PAYLOADS
    ] * 4
    experiment = finished(workspace, user, rows, source=HOSTILE, name="Hostile <i>set</i>")
    evaluator = experiment.bindings.get().evaluator_version.evaluator
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    sign_in(page, live_server)
    base = f"{live_server.url}/w/acme"
    result = experiment.results.first()
    urls = [
        f"{base}/evaluators/",
        f"{base}/evaluators/{evaluator.public_id}/",
        f"{base}/evalsets/",
        f"{base}/evalsets/{experiment.evalset_version.evalset.public_id}/",
        f"{base}/experiments/",
        f"{base}/experiments/{experiment.public_id}/",
        f"{base}/experiments/{experiment.public_id}/results/{result.pk}/",
    ]
    for url in urls:
        page.goto(url)
        page.wait_for_load_state("load")
        assert page.evaluate("window.__xss") is None, url
        for link in page.locator("a[href^='javascript:']").all():
            raise AssertionError(f"a javascript: link became live on {url}: {link}")
    page.goto(f"{base}/experiments/{experiment.public_id}/")
    page.locator("#results-table .open-item").first.click()
    page.wait_for_selector("#result-drawer")
    assert "<script>" in page.locator("#result-drawer .reason").inner_text()
    assert page.evaluate("window.__xss") is None
    screenshot(page, "hostile-text-inert")
    assert dialogs == [] and page.console_errors == []
