"""Online evaluation: rules that score live traffic with the workspace's evaluator versions.

A rule names what it looks at (its scope and filter), how much of it (a sampling rate and daily
budgets) and which evaluator versions score it, each with a mapping from span fields to the
version's variables. Traces are read from `traces.Span` by trace and span id; the rule keeps
no foreign key to them (spans live in day partitions that retention drops).
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils.translation import gettext_lazy as _

from assay.bases import Authored, WorkspaceNamed
from assay.models import Workspace
from assay.vocabulary import ResultStatus, Verdict
from evaluators.models import EvaluatorVersion
from experiments.runs.bases import ChunkBase, RunBase

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


class OnlineRule(WorkspaceNamed):
    """What live traffic a rule scores and how much of it."""

    # what a rule's owner sets (the API's body and answer, the services' fields)
    SETTINGS = (
        "name",
        "scope",
        "filter",
        "environment",
        "sampling_rate",
        "concurrency",
        "daily_item_budget",
        "daily_cost_budget",
        "idle_seconds",
        "active",
    )

    scope = models.CharField(max_length=8, choices=RuleScope.choices, default=RuleScope.SPAN)
    # the span filter as a tree of conditions (`online.filters`); {} matches every span
    filter = models.JSONField(default=dict, blank=True)
    # "" scores every environment; experiment traffic is never scored whatever this says
    environment = models.CharField(max_length=64, blank=True, default=DEFAULT_ENVIRONMENT)
    sampling_rate = models.FloatField(default=1.0)
    # calls in flight at once for each evaluator version, shared by the rule's runs' chunks
    concurrency = models.PositiveSmallIntegerField(default=8)
    daily_item_budget = models.PositiveIntegerField(null=True, blank=True)
    daily_cost_budget = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    # a trace or session is ready after this long without a new span (or when its root ends)
    idle_seconds = models.PositiveIntegerField(default=DEFAULT_IDLE_SECONDS)
    active = models.BooleanField(default=True)
    # what the sweep has looked at (spans received up to here), and the rate the budget left
    swept_until = models.DateTimeField(null=True, blank=True)
    rate_in_force = models.FloatField(null=True, blank=True)
    rate_day = models.DateField(null=True, blank=True)
    # where the spans a backfill scored begin (a later backfill must end there or earlier)
    backfilled_from = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="online_rule_name_once")
        ]
        ordering = ["name", "pk"]


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


class RunSource(models.TextChoices):
    """Where a run's items came from: the live sweep, or a backfill over a past window."""

    LIVE = "live", _("live")
    BACKFILL = "backfill", _("backfill")


class OnlineRun(RunBase):
    """One sweep of one rule: the items it sampled, scored in chunks by the run engine (leases,
    dispatch, slots, cancel and exactly-once, as every kind of run)."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    rule = models.ForeignKey(OnlineRule, on_delete=models.CASCADE, related_name="runs")
    source = models.CharField(max_length=8, choices=RunSource.choices, default=RunSource.LIVE)
    # the spans swept: received in (since, until]
    since = models.DateTimeField(null=True, blank=True)
    until = models.DateTimeField()

    class Meta:
        ordering = ["-created_at"]


class OnlineChunk(ChunkBase):
    """Items of one run for one of the rule's evaluator versions (its queue is the kind's)."""

    run = models.ForeignKey(OnlineRun, on_delete=models.CASCADE, related_name="chunks")
    rule_evaluator = models.ForeignKey(RuleEvaluator, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8)  # the broker queue: "code" or "llm"
    items = models.JSONField()  # [{"trace_id", "span_id", "rate"}]

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="online_chunk_index_once")
        ]


class OnlineOutcome(models.Model):
    """What a rule's evaluator version made of one item: a score, or why there is none. Once per
    (evaluator of the rule, item): a sweep or a chunk that runs twice writes it once."""

    rule = models.ForeignKey(OnlineRule, on_delete=models.CASCADE, related_name="outcomes")
    rule_evaluator = models.ForeignKey(
        RuleEvaluator, on_delete=models.CASCADE, related_name="outcomes"
    )
    run = models.ForeignKey(OnlineRun, null=True, on_delete=models.SET_NULL, related_name="+")
    trace_id = models.CharField(max_length=32)
    span_id = models.CharField(max_length=16, blank=True)  # "" for a trace or session item
    session_id = models.CharField(max_length=256, blank=True)
    item_time = models.DateTimeField()  # the span's start: the window it counts in
    rate = models.FloatField()  # the sampling rate in force when it was sampled
    status = models.CharField(max_length=8, choices=ResultStatus.choices)
    skip_reason = models.CharField(max_length=16, choices=SkipReason.choices, blank=True)
    verdict = models.CharField(max_length=8, choices=Verdict.choices, default=Verdict.UNKNOWN)
    score = models.FloatField(null=True, blank=True)
    reason = models.TextField(blank=True)
    error = models.TextField(blank=True)
    rendered_request = models.JSONField(null=True, blank=True)
    raw_answer = models.TextField(null=True, blank=True)
    latency_ms = models.FloatField(default=0)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost = models.FloatField(null=True, blank=True)
    cached = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["rule_evaluator", "trace_id", "span_id"], name="online_outcome_once"
            )
        ]
        indexes = [
            models.Index(fields=["rule", "item_time"], name="online_outcome_window"),
            models.Index(fields=["trace_id"], name="online_outcome_trace"),
            # a session's outcomes, for gold labels on sessions (annotation)
            models.Index(
                fields=["session_id"],
                name="online_outcome_session",
                condition=~models.Q(session_id=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rule_evaluator}: {self.trace_id}/{self.span_id} {self.status}"


class RuleStratum(models.Model):
    """How many items of an hour a rule saw under one sampling rate: every eligible item
    (sampled or not) and those sampled. A window's rate weighs its strata by `eligible`."""

    rule = models.ForeignKey(OnlineRule, on_delete=models.CASCADE, related_name="strata")
    hour = models.DateTimeField()  # UTC, on the hour
    rate = models.FloatField()
    eligible = models.PositiveIntegerField(default=0)
    sampled = models.PositiveIntegerField(default=0)
    over_budget = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["rule", "hour", "rate"], name="online_stratum_once")
        ]

    def __str__(self) -> str:
        return f"{self.rule} {self.hour:%Y-%m-%d %H}h at {self.rate:g}"


# ----------------------------------------------------------------------------- alerts


class AlertMetric(models.TextChoices):
    """What an alert watches, per window of the rule's traffic."""

    FAIL_RATE = "fail_rate", _("fail rate")
    UNKNOWN_RATE = "unknown_rate", _("unknown rate")
    MEAN_SCORE = "mean_score", _("mean score")
    COST = "cost", _("cost per window")
    VOLUME = "volume", _("volume per window")


class AlertDirection(models.TextChoices):
    """The bad direction of a metric (`experiments.stats.alerts.DIRECTIONS`)."""

    RISE = "rise", _("rises")
    DROP = "drop", _("drops")
    EITHER = "either", _("moves either way")


class AlertMode(models.TextChoices):
    """Statistical (against the rolling baseline) by default; a raw threshold only when asked."""

    STATISTICAL = "statistical", _("statistical")
    THRESHOLD = "threshold", _("raw threshold")


class AlertWindow(models.TextChoices):
    HOUR = "hour", _("hour")
    DAY = "day", _("day")


class AlertAction(models.TextChoices):
    FIRED = "fired", _("fired")
    RESOLVED = "resolved", _("resolved")


# a metric's bad direction when the alert does not name one
DEFAULT_DIRECTION = {
    AlertMetric.FAIL_RATE: AlertDirection.RISE,
    AlertMetric.UNKNOWN_RATE: AlertDirection.RISE,
    AlertMetric.MEAN_SCORE: AlertDirection.DROP,
    AlertMetric.COST: AlertDirection.RISE,
    AlertMetric.VOLUME: AlertDirection.EITHER,
}
NEVER_RESOLVED = 1_000_000  # `quiet_for` of an alert that never resolved: no cooldown to wait


class RuleAlert(Authored):
    """An alert on one of a rule's evaluators (the rule itself for volume), with the state
    its evaluation carries from window to window."""

    SETTINGS = (
        "metric",
        "direction",
        "mode",
        "threshold",
        "window",
        "min_n",
        "cooldown",
        "baseline_windows",
        "false_alarms_per_week",
        "enabled",
    )

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    rule = models.ForeignKey(OnlineRule, on_delete=models.CASCADE, related_name="alerts")
    # null: the rule's volume, which no evaluator owns
    rule_evaluator = models.ForeignKey(
        RuleEvaluator, null=True, blank=True, on_delete=models.CASCADE, related_name="alerts"
    )
    metric = models.CharField(max_length=16, choices=AlertMetric.choices)
    direction = models.CharField(max_length=8, choices=AlertDirection.choices)
    mode = models.CharField(max_length=12, choices=AlertMode.choices, default=AlertMode.STATISTICAL)
    threshold = models.FloatField(null=True, blank=True)
    window = models.CharField(max_length=8, choices=AlertWindow.choices, default=AlertWindow.HOUR)
    min_n = models.PositiveIntegerField(default=30)
    cooldown = models.PositiveIntegerField(default=3)
    baseline_windows = models.PositiveIntegerField(default=24)
    false_alarms_per_week = models.FloatField(default=0.05)
    enabled = models.BooleanField(default=True)
    # state between evaluations: open or not, windows since the last resolve, and the end of
    # the last window decided (a worker claims the next one by a conditional UPDATE on it)
    is_open = models.BooleanField(default=False)
    quiet_for = models.PositiveIntegerField(default=NEVER_RESOLVED)
    evaluated_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.rule} · {self.metric} {self.direction}"


class AlertEvent(models.Model):
    """An alert fired or resolved at the close of one window; once per (alert, window,
    action), so a window evaluated twice records once."""

    alert = models.ForeignKey(RuleAlert, on_delete=models.CASCADE, related_name="events")
    action = models.CharField(max_length=8, choices=AlertAction.choices)
    window_start = models.DateTimeField()
    window_end = models.DateTimeField()
    value = models.FloatField(null=True, blank=True)
    baseline = models.FloatField(null=True, blank=True)
    z = models.FloatField(null=True, blank=True)
    test = models.CharField(max_length=16, blank=True)  # "window", "two windows", "threshold"
    n = models.PositiveIntegerField(default=0)  # the items the window's value stands on
    message = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["alert", "window_start", "action"], name="online_alert_event_once"
            )
        ]
        ordering = ["-window_start", "-pk"]

    def __str__(self) -> str:
        return f"{self.alert} {self.action} {self.window_start:%Y-%m-%d %H}h"
