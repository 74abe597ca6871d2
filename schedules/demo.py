"""The demo's template: the demo experiment's set-up saved as "Demo QA · nightly", following
the evalset's latest committed version, with a nightly schedule at 02:00 in Shanghai that is
paused (a demo left running should not launch runs by itself); resuming it on the template's
page shows the next five times."""

from __future__ import annotations

from django.utils import timezone

from assay.demo import demo_existing
from experiments.demo import BASELINE
from experiments.models import Experiment

from .models import ExperimentTemplate
from .services.schedules import schedule_create, schedule_pause
from .services.templates import template_from_experiment, template_update

TEMPLATE = "Demo QA · nightly"


def demo_load(*, workspace, user) -> None:
    """The template and its paused schedule, once (nothing when the demo experiment is missing)."""
    experiment = demo_existing(Experiment, workspace, BASELINE)
    if experiment is None or demo_existing(ExperimentTemplate, workspace, TEMPLATE) is not None:
        return
    template = template_from_experiment(experiment=experiment, user=user, name=TEMPLATE)
    template = template_update(
        template=template, changes={"evalset_latest": True, "name_pattern": "nightly {date}"}
    )
    now = timezone.now()
    schedule = schedule_create(
        template=template, user=user, cron="0 2 * * *", timezone="Asia/Shanghai", now=now
    )
    schedule_pause(schedule=schedule, paused=True, now=now)
