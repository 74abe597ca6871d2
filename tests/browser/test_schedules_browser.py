"""Headless Chromium on templates and schedules: a finished experiment saved as a template from
its page ("Save as template"), a schedule added with its next five times, paused and resumed,
a launch from the page, the run history with a skipped time and a comparison; the pages fit a
phone and a desktop in English and Chinese with no script error; screenshots kept."""

from datetime import UTC, datetime

import pytest

from assay.models import UserPreference
from experiments import scoring as engine
from schedules import services
from schedules.models import ExperimentTemplate, Schedule
from tests.browser.test_widths_browser import OVERFLOWING, SCROLL_WIDTH
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline
from tests.support.fixtures import open_dialog, screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_save_as_template_schedule_launch_and_history(live_server, page, user, workspace):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40))
    evaluator = make_code_version(workspace=workspace, user=user)
    experiment = run_inline(
        workspace=workspace, user=user, version=version, evaluator_version=evaluator, name="QA run"
    )
    sign_in(page, live_server)
    base = f"{live_server.url}/w/{workspace.slug}"
    page.goto(f"{base}/experiments/{experiment.public_id}/")
    open_dialog(page, "#save-template-button", "#template-dialog")
    page.fill("#template-dialog #id_name", "Nightly QA")
    page.click("#confirm-save-template")
    page.wait_for_selector("#template-setup")
    template = ExperimentTemplate.objects.get(name="Nightly QA")
    page.fill("#id_cron", "30 2 * * 1-5")
    page.fill("#id_timezone", "Asia/Shanghai")
    page.click("#add-schedule")
    page.wait_for_selector(".schedule .next-runs")
    assert page.locator(".next-runs time").count() == 5
    page.click(".toggle-schedule")
    page.wait_for_selector(".schedule >> text=Resume")
    assert Schedule.objects.get().paused is True
    page.click(".toggle-schedule")
    page.wait_for_selector(".schedule >> text=Pause")
    page.click("#launch-template")
    page.wait_for_url("**/experiments/*/")
    [launched] = template.runs.all()
    # the launched run is still queued: a scheduled time is skipped; it finishes, is compared
    services.schedule_fire(
        schedule=Schedule.objects.get(), now=datetime.now(UTC), due_at=datetime.now(UTC)
    )
    engine.experiment_run_inline(experiment_id=launched.experiment.pk)
    services.template_update(template=template, changes={"baseline": experiment})
    services.schedule_runs_compare(now=datetime.now(UTC))
    alerts, too_wide = [], []
    page.on("dialog", lambda dialog: (alerts.append(dialog.message), dialog.dismiss()))
    for language in ("en", "zh-hans"):
        UserPreference.objects.update_or_create(user=user, defaults={"language": language})
        for width in (390, 1440):
            page.set_viewport_size({"width": width, "height": 900})
            for name, path in (
                ("template", f"templates/{template.public_id}/"),
                ("templates", "templates/"),
            ):
                page.goto(f"{base}/{path}")
                scroll_width, inner_width = page.evaluate(SCROLL_WIDTH)
                if scroll_width > inner_width:
                    too_wide.append(f"{name} {language} {width}: {page.evaluate(OVERFLOWING)}")
                screenshot(page, f"schedules-{name}-{language}-{width}")
    assert not too_wide, too_wide
    assert alerts == [] and page.console_errors == []
    page.goto(f"{base}/templates/{template.public_id}/")
    rows = page.locator("#runs-table tbody tr")
    assert rows.count() == 2
    assert "上一次运行" in rows.nth(0).inner_text() and "无显著变化" in rows.nth(1).inner_text()
