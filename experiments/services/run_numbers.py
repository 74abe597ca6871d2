"""The numbers a run is created with (repetitions, concurrency, chunk size, interval), checked
alike for every kind of run that takes them; each kind says how many repetitions it allows."""

from __future__ import annotations

from django.utils.translation import gettext as _

from ..stats.interval_settings import interval_problems


def run_numbers_problems(
    *, repetitions, concurrency, chunk_size, interval: dict | None, max_repetitions: int
) -> dict[str, list[str]]:
    """The problem of each number out of its range, by its field; empty when all are in range."""
    errors: dict[str, list[str]] = {}
    if not _whole_within(concurrency, 1, 64):
        errors["concurrency"] = [_("Concurrency must be between 1 and 64.")]
    if not _whole_within(repetitions, 1, max_repetitions):
        errors["repetitions"] = [
            _("Repetitions must be a whole number from 1 to %(max_repetitions)s.")
            % {"max_repetitions": max_repetitions}
        ]
    if not _whole_within(chunk_size, 10, 10_000):
        errors["chunk_size"] = [_("Chunk size must be between 10 and 10,000.")]
    if problems := interval_problems(interval or {}):
        errors["interval"] = problems
    return errors


def _whole_within(value, low: int, high: int) -> bool:
    return isinstance(value, int) and low <= value <= high
