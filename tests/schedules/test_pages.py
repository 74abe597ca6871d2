"""The templates' pages: a template made on its page, "Save as template" on an experiment's
page, launch, a schedule added with its next five times, pause/resume, and the run history
showing a skip and a comparison; outsiders get 404 and viewers cannot write."""

from datetime import UTC, datetime

import pytest

from assay.models import Membership
from experiments import scoring as engine
from schedules import services
from schedules.models import ExperimentTemplate, Schedule
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.fixture
def parts(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4))
    return version, make_code_version(workspace=workspace, user=user)


@pytest.fixture
def template(workspace, user, parts):
    setup = {
        "name": "Nightly <QA>",
        "evalset_version": parts[0],
        "bindings": [{"evaluator_version": parts[1], "latest": True}],
    }
    return services.template_create(workspace=workspace, user=user, setup=setup)


def page(workspace, template, tail=""):
    return f"/w/{workspace.slug}/templates/{template.public_id}/{tail}"


def test_a_template_made_on_its_page(web, workspace, parts):
    version, evaluator = parts
    form = {
        "name": "Nightly",
        "evalset_version": str(version.public_id),
        "evalset_latest": "on",
        "evaluator_versions": [str(evaluator.public_id)],
        "repetitions": 1,
        "concurrency": 4,
        "name_pattern": "nightly {date}",
    }
    bad = web.post(f"/w/{workspace.slug}/templates/new/", {**form, "name_pattern": "{nope}"})
    assert bad.status_code == 400 and "Use only {template}" in bad.content.decode()
    made = web.post(f"/w/{workspace.slug}/templates/new/", form)
    assert made.status_code == 302, made.content.decode()[:2000]
    template = ExperimentTemplate.objects.get()
    assert template.evalset_version is None and template.concurrency == 4


def test_save_as_template_from_an_experiment_page(web, workspace, user, parts):
    experiment = run_inline(
        workspace=workspace, user=user, version=parts[0], evaluator_version=parts[1]
    )
    shown = web.get(f"/w/{workspace.slug}/experiments/{experiment.public_id}/").content.decode()
    assert 'id="save-template-button"' in shown
    saved = web.post(
        f"/w/{workspace.slug}/templates/from-experiment/{experiment.public_id}/",
        {"name": "From run"},
    )
    template = ExperimentTemplate.objects.get(name="From run")
    assert saved.status_code == 302 and saved["Location"].endswith(
        f"/templates/{template.public_id}/"
    )
    assert template.saved_from == experiment


def test_launch_schedule_pause_and_history(web, workspace, user, template):
    launched = web.post(page(workspace, template, "launch/"))
    assert launched.status_code == 302 and "/experiments/" in launched["Location"]
    added = web.post(
        page(workspace, template, "schedules/"), {"cron": "0 2 * * *", "timezone": "Asia/Shanghai"}
    )
    assert added.status_code == 302
    schedule = Schedule.objects.get()
    bad = web.post(
        page(workspace, template, "schedules/"), {"cron": "nightly", "timezone": "Nowhere"}
    )
    assert bad.status_code == 400 and "five fields" in bad.content.decode()
    # the launched run is still queued: the schedule's time is skipped and recorded
    services.schedule_fire(schedule=schedule, now=START, due_at=START)
    html = web.get(page(workspace, template)).content.decode()
    # the next five times, in the schedule's zone (02:00 in Shanghai is 18:00 UTC)
    assert html.count('T18:00:00+00:00" class="nowrap">') == 5
    assert "02:00</time>" in html and "(Asia/Shanghai)" in html
    assert "Nightly &lt;QA&gt;" in html and "Nightly <QA>" not in html
    assert 'data-outcome="skipped"' in html and "had not finished" in html
    web.post(page(workspace, template, f"schedules/{schedule.public_id}/toggle/"))
    schedule.refresh_from_db()
    assert schedule.paused is True
    assert "Resume" in web.get(page(workspace, template)).content.decode()


def test_the_history_shows_a_regression_in_both_languages(web, workspace, user, template):
    run = services.template_launch(template=template, user=user, now=START)
    engine.experiment_run_inline(experiment_id=run.experiment.pk)
    run.comparison, run.comparison_text = "regression", "regression on evaluator Contains: −8.1 pts"
    run.comparison_detail = [
        {"evaluator": "Contains", "summary": "−8.1 pts [−11.0, −5.2], p < 0.001"}
    ]
    run.save()
    html = web.get(page(workspace, template), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "on evaluator Contains: −8.1 pts [−11.0, −5.2], p &lt; 0.001" in html
    web.post("/i18n/setlang/", {"language": "zh-hans"})
    zh = web.get(page(workspace, template)).content.decode()
    assert "退化" in zh and "计划" in zh


def test_outsiders_get_404_and_viewers_cannot_write(
    client, make_user, outsider, member, workspace, template
):
    services.schedule_create(
        template=template, user=None, cron="0 2 * * *", timezone="UTC", now=START
    )
    schedule = Schedule.objects.get()
    client.force_login(outsider)
    urls = [
        page(workspace, template),
        page(workspace, template, "launch/"),
        page(workspace, template, f"schedules/{schedule.public_id}/toggle/"),
        f"/w/other/templates/{template.public_id}/",
    ]
    assert [client.get(u).status_code for u in urls[:1] + urls[3:]] == [404, 404]
    assert [client.post(u).status_code for u in urls[1:]] == [404, 404, 404]
    viewer = member("vic", Membership.Role.VIEWER)
    client.force_login(viewer)
    assert client.get(page(workspace, template)).status_code == 200
    assert client.post(page(workspace, template, "launch/")).status_code == 403
    assert "launch-template" not in client.get(page(workspace, template)).content.decode()


def test_why_the_gate_could_not_decide_is_worded_in_the_readers_language(
    web, workspace, user, template
):
    """Four rows are too few for the gate (30 decided on both sides): the stored numbers are
    worded on each page view, so a Chinese reader reads Chinese."""
    for _ in range(2):
        run = services.template_launch(template=template, user=user, now=START)
        engine.experiment_run_inline(experiment_id=run.experiment.pk)
    services.schedule_runs_compare(now=START)
    run.refresh_from_db()
    assert run.comparison == "undecided"
    assert "only 4 rows decided on both sides, fewer than 30" in run.comparison_text
    en = web.get(page(workspace, template), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Contains: only 4 rows decided on both sides, fewer than 30" in en
    web.post("/i18n/setlang/", {"language": "zh-hans"})
    zh = web.get(page(workspace, template)).content.decode()
    assert "Contains: 两边都有判定的行只有 4 行，少于 30 行" in zh
    assert "fewer than" not in zh
