"""Online evaluation: rules that score live traffic with the workspace's evaluator versions.

A rule names what it looks at (its scope and filter), how much of it (a sampling rate and daily
budgets) and which evaluator versions score it, each with a mapping from span fields to the
version's variables. Traces are read from `traces.Span` by trace and span id; the rule keeps
no foreign key to them (spans live in day partitions that retention drops).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from assay.models import Workspace
from evaluators.models import EvaluatorVersion

DEFAULT_ENVIRONMENT = "production"
DEFAULT_IDLE_SECONDS = 180


class RuleScope(models.TextChoices):
    """What one scored item is: a span, a whole trace, or a session's traces together."""

    SPAN = "span", _("span")
    TRACE = "trace", _("trace")
    SESSION = "session", _("session")


class SkipReason(models.TextChoices):
    """Why an item a rule saw was not scored; every item gets a score or one of these."""

    FILTERED = "filtered", _("filtered out")
    SAMPLED_OUT = "sampled_out", _("sampled out")
    OVER_BUDGET = "over_budget", _("over budget")
    NOT_READY = "not_ready", _("not ready in time")
    MAPPING = "mapping", _("mapping could not be filled")
    EVALUATOR_ERROR = "evaluator_error", _("evaluator error")
    PROVIDER_BLOCKED = "provider_blocked", _("provider blocked")


class OnlineRule(models.Model):
    """What live traffic a rule scores and how much of it."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=160)
    scope = models.CharField(max_length=8, choices=RuleScope.choices, default=RuleScope.SPAN)
    # the span filter as a tree of conditions (`online.filters`); {} matches every span
    filter = models.JSONField(default=dict, blank=True)
    # "" scores every environment; experiment traffic is never scored whatever this says
    environment = models.CharField(max_length=64, blank=True, default=DEFAULT_ENVIRONMENT)
    sampling_rate = models.FloatField(default=1.0)
    daily_item_budget = models.PositiveIntegerField(null=True, blank=True)
    daily_cost_budget = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    # a trace or session is ready after this long without a new span (or when its root ends)
    idle_seconds = models.PositiveIntegerField(default=DEFAULT_IDLE_SECONDS)
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="online_rule_name_once")
        ]
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name


class RuleEvaluator(models.Model):
    """One evaluator version a rule runs, and where its variables come from."""

    rule = models.ForeignKey(OnlineRule, on_delete=models.CASCADE, related_name="evaluators")
    evaluator_version = models.ForeignKey(
        EvaluatorVersion, on_delete=models.PROTECT, related_name="+"
    )
    mapping = models.JSONField()  # variable → source ("span:output", "attribute:<key>", …)
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["rule", "evaluator_version"], name="online_rule_version_once"
            )
        ]
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return f"{self.rule} · {self.evaluator_version}"
