"""Schedules on templates with time passed in: a due schedule launches its template once (two
beats do not launch twice), a run still going makes the next time a recorded skip, a schedule
missed for hours runs once on recovery, a paused one does not run, and one that breaks does
not hold up the others."""

import logging
from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError

from experiments import scoring as engine
from experiments.models import ExperimentStatus
from schedules import services
from schedules.models import ExperimentTemplate, RunOutcome, Schedule, ScheduleRun
from schedules.selectors import schedules_due
from schedules.services.schedules import _claimed
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, 0, 0, tzinfo=UTC)


@pytest.fixture
def template(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(4))
    evaluator = make_code_version(workspace=workspace, user=user)
    setup = {
        "name": "Nightly QA",
        "evalset_version": version,
        "bindings": [{"evaluator_version": evaluator, "latest": True}],
        "name_pattern": "nightly {date} {time}",
    }
    return services.template_create(workspace=workspace, user=user, setup=setup)


def test_a_due_schedule_launches_its_template_once(template, user):
    # 02:00 in Shanghai is 18:00 UTC the day before
    schedule = services.schedule_create(
        template=template, user=user, cron="0 2 * * *", timezone="Asia/Shanghai", now=START
    )
    assert schedule.next_run_at == datetime(2026, 3, 1, 18, 0, tzinfo=UTC)
    assert services.schedules_run_due(now=START + timedelta(hours=17, minutes=59)) == []
    due = datetime(2026, 3, 1, 18, 0, 20, tzinfo=UTC)
    [run] = services.schedules_run_due(now=due)
    assert run.outcome == RunOutcome.LAUNCHED and run.missed == 0
    assert run.experiment.name == "nightly 2026-03-02 02:00"
    assert run.experiment.status == ExperimentStatus.QUEUED
    assert services.schedules_run_due(now=due) == []  # the second beat finds it claimed
    schedule.refresh_from_db()
    assert schedule.next_run_at == datetime(2026, 3, 2, 18, 0, tzinfo=UTC)
    assert ScheduleRun.objects.count() == 1


def test_a_stale_claim_launches_nothing(template, user):
    """Two beats read the same due schedule; the one whose UPDATE comes second launches
    nothing."""
    schedule = services.schedule_create(
        template=template, user=user, cron="*/5 * * * *", timezone="UTC", now=START
    )
    now = START + timedelta(minutes=5)
    [read_by_second_beat] = schedules_due(now=now)
    assert len(services.schedules_run_due(now=now)) == 1
    assert _claimed(read_by_second_beat, now) is False
    assert schedule.runs.count() == 1


def test_a_run_still_going_makes_the_next_time_a_recorded_skip(template, user, workspace):
    services.schedule_create(
        template=template, user=user, cron="0 * * * *", timezone="UTC", now=START
    )
    [first] = services.schedules_run_due(now=START + timedelta(hours=1))
    [skipped] = services.schedules_run_due(now=START + timedelta(hours=2))
    assert skipped.outcome == RunOutcome.SKIPPED and skipped.experiment is None
    assert skipped.blocked_by == first.experiment
    assert "had not finished" in skipped.reason and first.experiment.name in skipped.reason
    engine.experiment_run_inline(experiment_id=first.experiment.pk)
    [third] = services.schedules_run_due(now=START + timedelta(hours=3))
    assert third.outcome == RunOutcome.LAUNCHED
    assert workspace.experiments.count() == 2


def test_a_schedule_missed_for_hours_runs_once_on_recovery(template, user, workspace):
    schedule = services.schedule_create(
        template=template, user=user, cron="0 * * * *", timezone="UTC", now=START
    )
    # no beat from 01:00 to 06:30: six times passed
    recovered = START + timedelta(hours=6, minutes=30)
    [run] = services.schedules_run_due(now=recovered)
    assert run.outcome == RunOutcome.LAUNCHED
    assert run.due_at == START + timedelta(hours=1) and run.missed == 5
    assert services.schedules_run_due(now=recovered + timedelta(minutes=1)) == []
    schedule.refresh_from_db()
    assert schedule.next_run_at == START + timedelta(hours=7)
    assert workspace.experiments.count() == 1


def test_a_paused_schedule_does_not_run_and_resumes_from_now(template, user, workspace):
    schedule = services.schedule_create(
        template=template, user=user, cron="0 * * * *", timezone="UTC", now=START
    )
    services.schedule_pause(schedule=schedule, paused=True, now=START)
    assert services.schedules_run_due(now=START + timedelta(hours=5)) == []
    services.schedule_pause(schedule=schedule, paused=False, now=START + timedelta(hours=5))
    assert schedule.next_run_at == START + timedelta(hours=6)
    times = services.schedule_next_times(schedule=schedule, now=START + timedelta(hours=5))
    assert times == [START + timedelta(hours=h) for h in range(6, 11)]
    assert workspace.experiments.count() == 0


def test_a_launch_the_setup_no_longer_allows_is_recorded_as_failed(template, user):
    services.schedule_create(
        template=template, user=user, cron="0 * * * *", timezone="UTC", now=START
    )
    evaluator = template.bindings.get().evaluator  # followed as "latest": deleted, none is
    evaluator.mark_deleted(deleted=True)
    evaluator.save(update_fields=["deleted_at"])
    [run] = services.schedules_run_due(now=START + timedelta(hours=1))
    assert run.outcome == RunOutcome.FAILED and run.experiment is None
    assert "bindings[0].evaluator_version" in run.reason


@pytest.mark.parametrize(
    ("cron", "zone", "field"),
    [
        ("0 2 * *", "UTC", "cron"),
        ("0 2 * * * *", "UTC", "cron"),
        ("0 2 * * *", "Mars/Base", "timezone"),
        ("0 0 30 2 *", "UTC", "cron"),  # valid fields, but February has no 30th: never fires
    ],
)
def test_a_bad_cron_or_zone_is_named(template, user, cron, zone, field):
    with pytest.raises(ValidationError) as raised:
        services.schedule_create(template=template, user=user, cron=cron, timezone=zone, now=START)
    assert list(raised.value.message_dict) == [field]


def test_a_schedule_that_breaks_does_not_hold_up_the_others(template, user, caplog):
    broken, sound = (
        services.schedule_create(
            template=template, user=user, cron="0 * * * *", timezone="UTC", now=START
        )
        for _ in range(2)
    )
    # an expression this version's croniter refuses, as a row written by another might hold
    Schedule.objects.filter(pk=broken.pk).update(cron="61 * * * *")
    with caplog.at_level(logging.ERROR, logger="assay.jobs"):
        [run] = services.schedules_run_due(now=START + timedelta(hours=1))
    assert run.schedule == sound and run.outcome == RunOutcome.LAUNCHED
    assert [r.getMessage() for r in caplog.records] == [f"schedule {broken.pk} failed"]
    assert not ScheduleRun.objects.filter(schedule=broken).exists()


def test_a_launch_that_breaks_after_the_claim_is_recorded_failed(template, user, caplog):
    services.schedule_create(
        template=template, user=user, cron="0 * * * *", timezone="UTC", now=START
    )
    # a target set-up no version of the form writes: the launch raises past its checks
    ExperimentTemplate.objects.filter(pk=template.pk).update(target_config="not an object")
    with caplog.at_level(logging.ERROR, logger="schedules.services.schedules"):
        [run] = services.schedules_run_due(now=START + timedelta(hours=1))
    assert run.outcome == RunOutcome.FAILED and "failed unexpectedly" in run.reason
    assert ScheduleRun.objects.get() == run  # the due time is not lost, nor launched twice
    assert services.schedules_run_due(now=START + timedelta(hours=1)) == []
    [logged] = caplog.records
    assert logged.getMessage() == f"schedule {run.schedule_id} failed to launch"
