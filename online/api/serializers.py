"""API shapes of online rules."""

from __future__ import annotations

from rest_framework import serializers

from assay.api.serializers import StrictSerializer
from assay.vocabulary import ResultStatus, Verdict

from ..models import (
    AlertEvent,
    AlertMetric,
    AlertMode,
    AlertWindow,
    OnlineOutcome,
    OnlineRule,
    RuleAlert,
    RuleEvaluator,
    RuleScope,
    SkipReason,
)


class RuleEvaluatorSerializer(serializers.ModelSerializer):
    evaluator = serializers.UUIDField(source="evaluator_version.evaluator.public_id")
    evaluator_name = serializers.CharField(source="evaluator_version.evaluator.name")
    evaluator_version = serializers.UUIDField(source="evaluator_version.public_id")
    version = serializers.CharField(source="evaluator_version.version")

    class Meta:
        model = RuleEvaluator
        fields = ["evaluator", "evaluator_name", "evaluator_version", "version", "mapping"]
        read_only_fields = fields


class OnlineRuleSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    evaluators = RuleEvaluatorSerializer(many=True, read_only=True)

    class Meta:
        model = OnlineRule
        fields = ["id", *OnlineRule.SETTINGS, "evaluators", "created_at", "updated_at"]
        read_only_fields = fields


class OnlineRuleWriteSerializer(StrictSerializer):
    """The body of POST (every field but `name` and `evaluators` has a default) and PATCH."""

    name = serializers.CharField(max_length=160, allow_blank=True)
    scope = serializers.ChoiceField(choices=RuleScope.choices, default=RuleScope.SPAN)
    filter = serializers.JSONField(
        default=dict,
        help_text='{"all"|"any": [conditions]}; a condition is {"field": kind|name|model|service|'
        'environment|status|session_id|user_id|duration_ms|tokens_in|tokens_out|cost, "op", '
        '"value"} or {"attribute": key, "op": eq|ne|in|contains|exists, "value"}',
    )
    environment = serializers.CharField(
        max_length=64, allow_blank=True, default="production", help_text='"" for every one'
    )
    sampling_rate = serializers.FloatField(default=1.0, help_text="above 0, at most 1")
    concurrency = serializers.IntegerField(
        default=8, help_text="judge calls in flight at once per evaluator version (1-64)"
    )
    daily_item_budget = serializers.IntegerField(required=False, allow_null=True, min_value=0)
    daily_cost_budget = serializers.DecimalField(
        max_digits=12, decimal_places=4, required=False, allow_null=True
    )
    idle_seconds = serializers.IntegerField(
        default=180, help_text="a trace or session is ready after this long without a new span"
    )
    active = serializers.BooleanField(default=True)
    evaluators = serializers.ListField(
        child=serializers.DictField(),
        help_text='[{evaluator_version: id or "name@version", mapping?: {variable: source}}]; '
        "sources: span:input, span:output, span:input_messages, span:output_messages, "
        "span:name, span:model, trace:trajectory, session:conversation, session:first_input, "
        "session:last_output, attribute:<key> (each scope offers its own)",
    )


class OnlineOutcomeSerializer(serializers.ModelSerializer):
    evaluator_version = serializers.UUIDField(source="rule_evaluator.evaluator_version.public_id")
    evaluator_name = serializers.CharField(source="rule_evaluator.evaluator_version.evaluator.name")

    class Meta:
        model = OnlineOutcome
        fields = [
            "evaluator_version",
            "evaluator_name",
            "trace_id",
            "span_id",
            "session_id",
            "item_time",
            "rate",
            "status",
            "skip_reason",
            "verdict",
            "score",
            "reason",
            "error",
            "latency_ms",
            "tokens_in",
            "tokens_out",
            "cost",
            "cached",
            "created_at",
        ]
        read_only_fields = fields


class OutcomeFilterSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=Verdict.choices, required=False)
    skip_reason = serializers.ChoiceField(choices=SkipReason.choices, required=False)
    status = serializers.ChoiceField(choices=ResultStatus.choices, required=False)
    trace_id = serializers.RegexField(r"^[0-9a-f]{32}$", required=False)
    evaluator_version = serializers.UUIDField(required=False)


class MonitorQuerySerializer(serializers.Serializer):
    window = serializers.ChoiceField(choices=["hour", "day", "week"], default="day")
    count = serializers.IntegerField(min_value=1, max_value=48, default=14)


def rate_data(rate) -> dict | None:
    """A window's rate for the API: the fail rate, its pass rate and both intervals."""
    if rate is None:
        return None
    return {
        "fail_rate": rate.rate,
        "fail_interval": [rate.lower, rate.upper],
        "pass_rate": 1 - rate.rate,
        "pass_interval": [1 - rate.upper, 1 - rate.lower],
        "decided": rate.decided,
    }


def monitor_data(rows: list[dict]) -> list[dict]:
    """`online.selectors.rule_monitor` as JSON."""
    return [
        {
            "evaluator_version": str(row["evaluator"].evaluator_version.public_id),
            "evaluator_name": row["evaluator"].evaluator_version.evaluator.name,
            "windows": [
                {
                    **{k: v for k, v in w.items() if k not in ("raw", "calibrated")},
                    "raw": rate_data(w["raw"]),
                    "calibrated": rate_data(w["calibrated"]),
                }
                for w in row["windows"]
            ],
        }
        for row in rows
    ]


class BackfillSerializer(StrictSerializer):
    since = serializers.DateTimeField(help_text="the window's start (span start times)")
    until = serializers.DateTimeField(help_text="its end, at or before the rule's coverage")
    start = serializers.BooleanField(
        default=False, help_text="false: the estimate only; true: launch the run"
    )


class RuleAlertSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    evaluator_version = serializers.UUIDField(
        source="rule_evaluator.evaluator_version.public_id", allow_null=True, default=None
    )
    evaluator_name = serializers.CharField(
        source="rule_evaluator.evaluator_version.evaluator.name", allow_null=True, default=None
    )
    open = serializers.BooleanField(source="is_open")
    windows_since_resolved = serializers.IntegerField(source="quiet_for")

    class Meta:
        model = RuleAlert
        fields = [
            "id",
            "evaluator_version",
            "evaluator_name",
            *RuleAlert.SETTINGS,
            "open",
            "windows_since_resolved",
            "evaluated_until",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class RuleAlertWriteSerializer(StrictSerializer):
    """The body of POST (every field but `metric` has a default) and PATCH; the service checks
    the values together and names each problem by its field."""

    evaluator_version = serializers.UUIDField(
        required=False, allow_null=True, help_text="one of the rule's; its first by default"
    )
    metric = serializers.ChoiceField(choices=AlertMetric.choices)
    direction = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="rise, drop or either; by default the metric's bad one (fail and unknown "
        "rates and cost rise, the mean score drops, volume either)",
    )
    mode = serializers.ChoiceField(choices=AlertMode.choices, default=AlertMode.STATISTICAL)
    threshold = serializers.FloatField(
        required=False, allow_null=True, help_text="threshold mode only: the raw value to cross"
    )
    window = serializers.ChoiceField(choices=AlertWindow.choices, default=AlertWindow.HOUR)
    min_n = serializers.IntegerField(default=30, help_text="items a window needs (1-100000)")
    cooldown = serializers.IntegerField(default=3, help_text="windows after a resolve (0-1000)")
    baseline_windows = serializers.IntegerField(default=24, help_text="6-168")
    false_alarms_per_week = serializers.FloatField(
        default=0.05, help_text="the share of quiet weeks allowed a false alert (0-0.5)"
    )
    enabled = serializers.BooleanField(default=True)


class AlertEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = AlertEvent
        fields = [
            "action",
            "window_start",
            "window_end",
            "value",
            "baseline",
            "z",
            "test",
            "n",
            "message",
            "created_at",
        ]
        read_only_fields = fields
