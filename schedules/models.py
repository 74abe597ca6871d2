"""Experiment templates (a run's set-up saved to launch again), cron schedules on them, and
the runs launched from them (each compared with the template's baseline once it finishes).

A template references what an experiment would: an evalset version (or "the latest committed
version" of its set), evaluator versions (or "the latest" of each evaluator) and the target's
config as experiments store it — headers name workspace secrets (`{{secrets.NAME}}`), so a
template never holds a secret's value.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from assay.bases import WorkspaceNamed
from evalsets.models import EvalSet, EvalSetVersion
from evaluators.models import Evaluator, EvaluatorVersion
from experiments.models import Experiment

DEFAULT_NAME_PATTERN = "{template} {date}"


class ExperimentTemplate(WorkspaceNamed):
    """What a launch creates: the experiment's set-up, with "latest" where it follows."""

    description = models.TextField(blank=True)
    evalset = models.ForeignKey(EvalSet, on_delete=models.CASCADE, related_name="+")
    # null: each launch takes the set's latest committed version
    evalset_version = models.ForeignKey(
        EvalSetVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    target_kind = models.CharField(max_length=16, default="none")
    target_config = models.JSONField(default=dict, blank=True)
    concurrency = models.PositiveSmallIntegerField(default=8)
    chunk_size = models.PositiveIntegerField(default=1000)
    repetitions = models.PositiveSmallIntegerField(default=1)
    interval = models.JSONField(null=True, blank=True)
    name_pattern = models.CharField(max_length=160, default=DEFAULT_NAME_PATTERN)
    # the run scheduled runs are compared with; none: each run's previous completed one
    baseline = models.ForeignKey(
        Experiment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    saved_from = models.ForeignKey(
        Experiment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "name"], name="schedules_template_name_unique"
            )
        ]


class TemplateBinding(models.Model):
    """One evaluator of a template: a fixed version, or the evaluator's latest at launch."""

    template = models.ForeignKey(
        ExperimentTemplate, on_delete=models.CASCADE, related_name="bindings"
    )
    position = models.PositiveSmallIntegerField()
    evaluator = models.ForeignKey(Evaluator, on_delete=models.CASCADE, related_name="+")
    # null: the evaluator's latest version at each launch
    evaluator_version = models.ForeignKey(
        EvaluatorVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    mapping = models.JSONField(null=True, blank=True)
    # the rest of an experiment binding as given (policy, ext, applies_to, per-turn keys)
    options = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return f"{self.template_id}#{self.position}"


class Schedule(models.Model):
    """A cron expression in a time zone on a template; `next_run_at` is the claim's key."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    template = models.ForeignKey(
        ExperimentTemplate, on_delete=models.CASCADE, related_name="schedules"
    )
    cron = models.CharField(max_length=120)
    timezone = models.CharField(max_length=64, default="UTC")
    paused = models.BooleanField(default=False)
    next_run_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_run_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.cron} ({self.timezone})"


class RunOutcome(models.TextChoices):
    """What became of a launch: a run, a skip (the previous one still ran), or a failure."""

    LAUNCHED = "launched", _("launched")
    SKIPPED = "skipped", _("skipped")
    FAILED = "failed", _("failed to launch")


class Comparison(models.TextChoices):
    """A finished run against its baseline, by the CI gate's paired test."""

    PENDING = "pending", _("pending")
    NO_CHANGE = "no_change", _("no significant change")
    REGRESSION = "regression", _("regression")
    UNDECIDED = "undecided", _("not decided")
    NO_BASELINE = "no_baseline", _("no baseline")
    NOT_COMPLETED = "not_completed", _("run did not complete")


class ScheduleRun(models.Model):
    """A launch from a template (by a schedule, or by hand: no schedule), or a skipped one."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    template = models.ForeignKey(ExperimentTemplate, on_delete=models.CASCADE, related_name="runs")
    schedule = models.ForeignKey(
        Schedule, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    experiment = models.ForeignKey(
        Experiment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    outcome = models.CharField(max_length=10, choices=RunOutcome.choices)
    reason = models.TextField(blank=True)
    # a skip's cause: the template's run that had not finished
    blocked_by = models.ForeignKey(
        Experiment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    due_at = models.DateTimeField(null=True, blank=True)
    missed = models.PositiveIntegerField(default=0)  # earlier due times folded into this one
    comparison = models.CharField(
        max_length=16, choices=Comparison.choices, blank=True, db_index=True
    )  # blank for a launch that made no run
    comparison_text = models.TextField(blank=True)
    # per evaluator that regressed: {"evaluator": name, "summary": "−8.1 pts [−11.0, −5.2], …"};
    # not decided: {"evaluator": name, "gate": the gate's row}, worded for each reader
    comparison_detail = models.JSONField(default=list, blank=True)
    compared_with = models.ForeignKey(
        Experiment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    compared_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.template_id} {self.outcome} {self.due_at or self.created_at}"
