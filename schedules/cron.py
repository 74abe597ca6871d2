"""Cron expressions in a time zone: are they valid, and when do they fire next (croniter).

Five fields only (minute to weekday): the beat looks once a minute, so a seconds field would
promise what it cannot keep. Times are computed in the schedule's zone (so "0 2 * * *" stays
at 02:00 local across daylight-saving changes) and returned in UTC.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from croniter import CroniterBadDateError, croniter
from django.utils.translation import gettext as _

MAX_CRON = 120
# a missed schedule is counted up to here (a worker down for a year at every minute is more)
MAX_MISSED_COUNTED = 10_000


def cron_problems(*, cron: str, timezone: str) -> dict[str, list[str]]:
    """The problems of a cron expression and a time zone, by field (none: both are usable)."""
    errors = {}
    text = (cron or "").strip()
    if len(text) > MAX_CRON or len(text.split()) != 5 or not croniter.is_valid(text):
        errors["cron"] = [
            _("A cron expression has five fields: minute hour day month weekday (e.g. 0 2 * * *).")
        ]
    elif _never_fires(text):
        errors["cron"] = [_("This expression never fires (a day the month does not have).")]
    if timezone not in _zones():
        errors["timezone"] = [_("Use an IANA time zone, such as UTC or Asia/Shanghai.")]
    return errors


def _never_fires(text: str) -> bool:
    """Valid fields that name no real time ("0 0 30 2 *"): croniter finds no next one, and a
    schedule could not be given its first time."""
    try:
        croniter(text, datetime.now(UTC)).get_next(datetime)
    except CroniterBadDateError:
        return True
    return False


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def cron_times(*, cron: str, timezone: str, after: datetime) -> Iterator[datetime]:
    """The times the expression fires strictly after `after`, in UTC, without end."""
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    times = croniter(cron.strip(), after.astimezone(zone))
    while True:
        yield times.get_next(datetime).astimezone(UTC)


def cron_next(*, cron: str, timezone: str, after: datetime, count: int = 1) -> list[datetime]:
    """The next `count` times the expression fires after `after` (UTC)."""
    times = cron_times(cron=cron, timezone=timezone, after=after)
    return [next(times) for _ in range(count)]


def cron_missed(*, cron: str, timezone: str, since: datetime, until: datetime) -> int:
    """How many times it fired in (since, until]: what a late claim folds into one run."""
    count = 0
    for when in cron_times(cron=cron, timezone=timezone, after=since):
        if when > until or count >= MAX_MISSED_COUNTED:
            return count
        count += 1
    return count
