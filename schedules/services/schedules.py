"""Schedules on templates: create, change, pause and resume, and the beat's launch of the due
ones.

A due schedule is claimed by one conditional UPDATE that moves `next_run_at` from the value
read to the first time after now; only the beat whose UPDATE changed the row launches, so two
beats (or two workers) never launch the same time twice. Moving to the first time after *now*
(not after the missed time) is what makes a schedule missed for hours run once on recovery:
the times in between are counted on the run (`missed`), not launched.
"""

from __future__ import annotations

import logging
from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from assay.jobs import each_apart

from ..cron import cron_missed, cron_next, cron_problems
from ..models import ExperimentTemplate, RunOutcome, Schedule, ScheduleRun
from ..selectors import schedules_due, unfinished_run
from .templates import template_launch

logger = logging.getLogger(__name__)


def schedule_create(
    *,
    template: ExperimentTemplate,
    user: AbstractBaseUser,
    cron: str,
    timezone: str,
    now: datetime,
) -> Schedule:
    """A schedule firing at `cron` in `timezone` (IANA); its first time is the next after now."""
    cron = _checked(cron, timezone)
    next_at = cron_next(cron=cron, timezone=timezone, after=now)[0]
    return Schedule.objects.create(
        template=template, cron=cron, timezone=timezone, next_run_at=next_at, created_by=user
    )


def schedule_update(*, schedule: Schedule, cron: str, timezone: str, now: datetime) -> Schedule:
    """A new expression or zone; the next time is recomputed from now."""
    schedule.cron, schedule.timezone = _checked(cron, timezone), timezone
    schedule.next_run_at = cron_next(cron=schedule.cron, timezone=timezone, after=now)[0]
    schedule.save(update_fields=["cron", "timezone", "next_run_at"])
    return schedule


def schedule_pause(*, schedule: Schedule, paused: bool, now: datetime) -> Schedule:
    """Pause, or resume from the next time after now (a pause's missed times are not run)."""
    schedule.paused = paused
    if not paused:
        after = cron_next(cron=schedule.cron, timezone=schedule.timezone, after=now)
        schedule.next_run_at = after[0]
    schedule.save(update_fields=["paused", "next_run_at"])
    return schedule


def schedule_delete(*, schedule: Schedule) -> None:
    """Delete a schedule; the runs it launched stay in the template's history."""
    schedule.delete()


def _checked(cron: str, timezone: str) -> str:
    if errors := cron_problems(cron=cron, timezone=timezone):
        raise ValidationError(errors)
    return " ".join(cron.split())


def schedule_next_times(*, schedule: Schedule, now: datetime, count: int = 5) -> list[datetime]:
    """The next `count` times the schedule fires: its due time, then the cron's times after it
    (a paused one: the times after now, where resuming would start)."""
    cron, zone = schedule.cron, schedule.timezone
    start = schedule.next_run_at
    if schedule.paused or start is None or start <= now:
        return cron_next(cron=cron, timezone=zone, after=now, count=count)
    return [start, *cron_next(cron=cron, timezone=zone, after=start, count=count - 1)]


def schedules_run_due(*, now: datetime) -> list[ScheduleRun]:
    """Launch (or skip) every due schedule that this caller claims; the runs recorded (one
    that fails is logged and the others go on)."""
    fired = each_apart(
        schedules_due(now=now), lambda schedule: _fired(schedule, now), what="schedule"
    )
    return [run for run in fired if run is not None]


def _fired(schedule: Schedule, now: datetime) -> ScheduleRun | None:
    """The due time fired, when this caller claims it; None when another did."""
    due_at = schedule.next_run_at
    if not _claimed(schedule, now):
        return None
    missed = cron_missed(cron=schedule.cron, timezone=schedule.timezone, since=due_at, until=now)
    try:
        with transaction.atomic():
            return schedule_fire(schedule=schedule, now=now, due_at=due_at, missed=missed)
    except Exception:  # noqa: BLE001 - the claim moved on: the time is recorded failed, not lost
        logger.exception("schedule %s failed to launch", schedule.pk)
        reason = _("The launch failed unexpectedly; the worker's log has why.")
        record = {"template": schedule.template, "schedule": schedule, "due_at": due_at}
        return ScheduleRun.objects.create(
            **record, missed=missed, outcome=RunOutcome.FAILED, reason=reason
        )


def _claimed(schedule: Schedule, now: datetime) -> bool:
    """Move next_run_at past now, only if no one else did since it was read."""
    following = cron_next(cron=schedule.cron, timezone=schedule.timezone, after=now)[0]
    moved = Schedule.objects.filter(
        pk=schedule.pk, paused=False, next_run_at=schedule.next_run_at
    ).update(next_run_at=following, last_run_at=now)
    return moved == 1


def schedule_fire(
    *, schedule: Schedule, now: datetime, due_at: datetime, missed: int = 0
) -> ScheduleRun:
    """One due time of a claimed schedule: skipped (recorded, with why) while the template's
    previous run has not finished, else launched; a launch the set-up no longer allows (an
    evaluator deleted, a secret gone) is recorded as failed with the problems."""
    template = schedule.template
    busy = unfinished_run(template=template)
    record = {"template": template, "schedule": schedule, "due_at": due_at, "missed": missed}
    if busy is not None:
        reason = _("The previous run %(name)r had not finished.") % {"name": busy.name}
        return ScheduleRun.objects.create(
            **record, outcome=RunOutcome.SKIPPED, blocked_by=busy, reason=reason
        )
    try:
        return template_launch(
            template=template, user=schedule.created_by, now=now, schedule=schedule,
            due_at=due_at, missed=missed,
        )  # fmt: skip
    except ValidationError as exc:
        return ScheduleRun.objects.create(
            **record, outcome=RunOutcome.FAILED, reason=_problems_text(exc)
        )


def _problems_text(exc: ValidationError) -> str:
    """A launch's problems on one line, each after its field."""
    problems = getattr(exc, "message_dict", {"": exc.messages})
    parts = [
        f"{field}: {' '.join(msgs)}" if field else " ".join(msgs)
        for field, msgs in problems.items()
    ]
    return "; ".join(parts)[:2000]
