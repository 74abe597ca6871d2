"""Headless Chromium on the imports pages: an OpenAI Evals definition and its data imported
through the page's form (reached from the Experiments list), its report page, and the
resulting experiment opened from it; the pages at a phone's and a desktop's width in English
and Chinese, with no sideways scroll and no script error; screenshots kept."""

from pathlib import Path

import pytest

from assay.models import UserPreference
from experiments.models import Experiment
from imports.models import ImportRun
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_evals"


def fits(page, too_wide: list, name: str) -> None:
    scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
    if scroll_width > inner_width:
        too_wide.append(f"{name}: {page.evaluate(OVERFLOWING)}")
    screenshot(page, name)


def upload_openai_eval(page) -> None:
    """Send the fixture's definition and data through the imports page's OpenAI Evals form."""
    form = "#import-openai-evals"
    page.set_input_files(
        f"{form} input[name=openai-evals-definition]", FIXTURES / "definition.json"
    )
    page.set_input_files(f"{form} input[name=openai-evals-data]", FIXTURES / "data.jsonl")
    page.click("#import-openai-evals-submit")


def test_an_openai_eval_is_imported_on_the_page_and_its_experiment_opened(
    live_server, page, user, workspace
):
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/{workspace.slug}/experiments/")
    page.click("#imports-link")
    upload_openai_eval(page)
    page.wait_for_selector("#import-report")
    run = ImportRun.objects.get(workspace=workspace)
    assert run.status == "completed"
    assert "metric exact_match" in page.inner_text("#import-report")
    report_url = page.url
    page.click("#import-created a.import-experiment")
    experiment = Experiment.objects.get(workspace=workspace)
    page.wait_for_url(f"**/experiments/{experiment.public_id}/")
    assert experiment.name in page.inner_text("h1")
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/w/{workspace.slug}/imports/")
            fits(page, too_wide, f"imports-list-{language}-{width}")
            page.goto(report_url)
            fits(page, too_wide, f"imports-report-{language}-{width}")
    assert not too_wide, too_wide
    assert page.console_errors == []


def test_a_large_import_is_followed_until_a_worker_has_finished_it(
    live_server, page, user, workspace, settings
):
    from imports.services import import_execute

    settings.ASSAY_IMPORT_INLINE_BYTES = 100  # bytes: the fixture's files go to a worker
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/{workspace.slug}/imports/")
    upload_openai_eval(page)
    page.wait_for_selector("#import-waiting")
    run = ImportRun.objects.get(workspace=workspace)
    assert run.status == "queued" and page.inner_text("#import-status") == "Queued"
    too_wide = []
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            page.reload()
            page.wait_for_selector("#import-waiting")
            fits(page, too_wide, f"imports-waiting-{language}-{width}")
    assert not too_wide, too_wide
    import_execute(run_id=run.pk)  # what the worker does; the page polls until it is done
    page.wait_for_selector("#import-report", timeout=10_000)
    assert page.query_selector("#import-waiting") is None
    assert page.inner_text("#import-status") == "已完成"
    assert page.console_errors == []
