"""A finished run from a template against its baseline, by the CI gate's paired test.

The baseline is the template's chosen run, else the template's previous completed run. The
gate (`experiments.results.gate.gate_check`, its defaults) decides; an evaluator whose pass
rate dropped by the gate's own test (`pass_rate_dropped`) is a regression, stored as
"regression on evaluator X: −8.1 pts [−11.0, −5.2], p < 0.001"; a gate that passes is "no
significant change"; a gate that fails for another reason (too few rows decided, more
unknowns) is "not decided", with the gate's reasons. No statistics of its own.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from assay.jobs import each_apart
from assay.vocabulary import EventType
from experiments.models import Experiment, ExperimentStatus
from experiments.results.gate import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_DROP,
    drop_summary,
    gate_check,
    pass_rate_dropped,
)
from notifications.services import event_emit

from ..models import Comparison, ScheduleRun
from ..selectors import previous_completed, runs_to_compare


def schedule_runs_compare(*, now: datetime) -> int:
    """Compare every launched run that has finished since the last look; how many were (one
    that fails is logged and stays pending, the others go on)."""
    compared = each_apart(
        runs_to_compare(),
        lambda run: schedule_run_compare(run=run, now=now),
        what="schedule run comparison",
    )
    return len(compared)


def schedule_run_compare(*, run: ScheduleRun, now: datetime) -> ScheduleRun:
    """Store the run's comparison (once: a second caller finds it no longer pending); a
    regression emits `schedule.regression` to the workspace's webhooks."""
    outcome, text, detail, baseline = _outcome(run)
    with transaction.atomic():
        stored = ScheduleRun.objects.filter(pk=run.pk, comparison=Comparison.PENDING).update(
            comparison=outcome,
            comparison_text=text,
            comparison_detail=detail,
            compared_with=baseline,
            compared_at=now,
        )
        if stored and outcome == Comparison.REGRESSION:
            _regression_emit(run, baseline, text, detail)
    run.refresh_from_db()
    return run


def _outcome(run: ScheduleRun) -> tuple[str, str, list, Experiment | None]:
    experiment = run.experiment
    if experiment.status != ExperimentStatus.COMPLETED:
        text = _("The run is %(status)s; only a completed run is compared.") % {
            "status": experiment.get_status_display()
        }
        return Comparison.NOT_COMPLETED, text, [], None
    baseline = _baseline(run)
    if baseline is None:
        return Comparison.NO_BASELINE, _("no completed run to compare with yet"), [], None
    try:
        result = gate_check(baseline=baseline, candidate=experiment)
    except ValidationError as exc:
        return Comparison.UNDECIDED, " ".join(exc.messages), [], baseline
    return (*_decided(result), baseline)


def _baseline(run: ScheduleRun) -> Experiment | None:
    chosen = run.template.baseline
    if chosen is not None and chosen.pk != run.experiment_id:
        return chosen
    return previous_completed(run=run)


def _decided(result) -> tuple[str, str, list]:
    dropped = [
        row
        for row in result.evaluators
        if pass_rate_dropped(row, alpha=DEFAULT_ALPHA, max_drop=DEFAULT_MAX_DROP)
    ]
    if dropped:
        detail = [{"evaluator": row.evaluator, "summary": drop_summary(row)} for row in dropped]
        parts = [
            _("regression on evaluator %(name)s: %(summary)s")
            % {"name": d["evaluator"], "summary": d["summary"]}
            for d in detail
        ]
        return Comparison.REGRESSION, "; ".join(parts), detail
    if result.passed:
        return Comparison.NO_CHANGE, _("no significant change"), []
    reasons = result.reasons + [r for row in result.evaluators for r in row.reasons]
    # the failing rows' numbers, so each reader's page words the reasons in their language
    detail = [{"evaluator": row.evaluator, "gate": asdict(row)} for row in result.evaluators]
    return Comparison.UNDECIDED, "; ".join(reasons), [d for d in detail if d["gate"]["failed"]]


def _regression_emit(run: ScheduleRun, baseline: Experiment, text: str, detail: list) -> None:
    """`schedule.regression`, sent once this transaction commits (notifications)."""
    template, experiment = run.template, run.experiment
    event_emit(
        workspace=template.workspace,
        event_type=EventType.SCHEDULE_REGRESSION,
        data={
            "template": {"id": str(template.public_id), "name": template.name},
            "experiment": {"id": str(experiment.public_id), "name": experiment.name},
            "baseline": {"id": str(baseline.public_id), "name": baseline.name},
            "summary": text,
            "regressions": detail,
        },
    )
