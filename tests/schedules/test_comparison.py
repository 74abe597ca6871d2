"""A finished run from a template against its baseline by the CI gate's paired test: a real
drop is stored as a regression with its numbers, noise as no significant change, and without a
chosen baseline the template's previous completed run is the baseline."""

from datetime import UTC, datetime

import pytest

from assay.vocabulary import EventType
from experiments import scoring as engine
from notifications.models import Event
from notifications.services import endpoint_create
from schedules import services
from schedules.models import Comparison
from tests.support.factories import make_evalset_version
from tests.support.gate_runs import COLUMNS, pairs, verdict_reader

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 1, 2, 0, tzinfo=UTC)


@pytest.fixture
def reader(workspace, user):
    return verdict_reader(workspace=workspace, user=user)


def template_on(workspace, user, reader, base, cand, *, baseline_side="base"):
    """A template reading the `cand` column, and a completed run reading the `base` one."""
    rows = [{"base": b, "cand": c} for b, c in zip(base, cand, strict=True)]
    version = make_evalset_version(workspace=workspace, user=user, rows=rows, columns=COLUMNS)
    setup = {
        "name": "Nightly",
        "evalset_version": version,
        "bindings": [{"evaluator_version": reader, "mapping": {"v": f"column:{baseline_side}"}}],
    }
    baseline_template = services.template_create(workspace=workspace, user=user, setup=setup)
    baseline = finished(baseline_template, user)
    setup = {
        **setup,
        "name": "Nightly candidate",
        "bindings": [{"evaluator_version": reader, "mapping": {"v": "column:cand"}}],
        "baseline": baseline.experiment,
    }
    return services.template_create(workspace=workspace, user=user, setup=setup), baseline


def finished(template, user):
    run = services.template_launch(template=template, user=user, now=NOW)
    engine.experiment_run_inline(experiment_id=run.experiment.pk)
    run.experiment.refresh_from_db()
    return run


def test_a_real_drop_is_stored_as_a_regression_and_told_to_webhooks(workspace, user, reader):
    endpoint_create(
        workspace=workspace,
        user=user,
        url="http://127.0.0.1:9/hook",
        events=[EventType.SCHEDULE_REGRESSION],
    )
    template, baseline = template_on(workspace, user, reader, *pairs(down=25, up=2))
    run = finished(template, user)
    assert services.schedule_runs_compare(now=NOW) == 2  # the baseline's own run too
    [event] = Event.objects.all()
    assert event.type == "schedule.regression"
    assert event.data["template"]["name"] == "Nightly candidate"
    assert event.data["summary"].startswith("regression on evaluator Reader: −11.5 pts")
    run.refresh_from_db()
    assert run.comparison == Comparison.REGRESSION
    assert run.compared_with == baseline.experiment
    assert (
        run.comparison_text == "regression on evaluator Reader: −11.5 pts [−15.5, −7.5], p < 0.001"
    )
    [detail] = run.comparison_detail
    assert detail["evaluator"] == "Reader" and "\u2212" in detail["summary"]
    assert "-" not in detail["summary"]  # no hyphen for a minus


def test_noise_is_no_significant_change(workspace, user, reader):
    template, baseline = template_on(workspace, user, reader, *pairs(down=5, up=4))
    run = finished(template, user)
    services.schedule_runs_compare(now=NOW)
    run.refresh_from_db()
    assert (run.comparison, run.comparison_text) == (Comparison.NO_CHANGE, "no significant change")
    assert not Event.objects.exists()
    assert run.compared_with == baseline.experiment


def test_without_a_baseline_the_previous_completed_run_is_compared(workspace, user, reader):
    template, _baseline = template_on(workspace, user, reader, *pairs(down=5, up=4))
    services.template_update(template=template, changes={"baseline": None})
    first, second = finished(template, user), finished(template, user)
    services.schedule_runs_compare(now=NOW)
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.comparison == Comparison.NO_BASELINE
    assert second.comparison == Comparison.NO_CHANGE
    assert second.compared_with == first.experiment


def test_a_run_is_compared_once_and_only_when_finished(workspace, user, reader):
    template, _baseline = template_on(workspace, user, reader, *pairs(down=25, up=2))
    run = services.template_launch(template=template, user=user, now=NOW)
    services.schedule_runs_compare(now=NOW)
    run.refresh_from_db()
    assert run.comparison == Comparison.PENDING  # still queued
    engine.experiment_run_inline(experiment_id=run.experiment.pk)
    services.schedule_runs_compare(now=NOW)
    assert services.schedule_runs_compare(now=NOW) == 0
