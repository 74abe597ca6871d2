"""Business logic of templates, schedules and their runs' comparisons."""

from .comparison import schedule_run_compare, schedule_runs_compare
from .schedules import (
    schedule_create,
    schedule_delete,
    schedule_fire,
    schedule_next_times,
    schedule_pause,
    schedule_update,
    schedules_run_due,
)
from .templates import (
    name_pattern_problems,
    name_render,
    template_create,
    template_delete,
    template_from_experiment,
    template_launch,
    template_setup,
    template_update,
)

__all__ = [
    "name_pattern_problems",
    "name_render",
    "schedule_create",
    "schedule_delete",
    "schedule_fire",
    "schedule_next_times",
    "schedule_pause",
    "schedule_run_compare",
    "schedule_runs_compare",
    "schedule_update",
    "schedules_run_due",
    "template_create",
    "template_delete",
    "template_from_experiment",
    "template_launch",
    "template_setup",
    "template_update",
]
