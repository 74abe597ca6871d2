"""API shapes of items added by a filter, feeds and assignment (`api_feeds.py`)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from assay.api.serializers import StrictSerializer
from traces.api.serializers import SpanFilterSerializer, TraceFilterSerializer

from ..models import FeedKind, QueueAccess, QueueFeed

# the keys naming a sources body's source (exactly one is sent)
SOURCE_KEYS = ("experiment", "rule", "sessions", "spans", "span_filter", "trace_filter")
VERDICTS_HELP = "the judge's verdicts taken: pass, fail, unknown (none: any)"


def _verdicts():
    return serializers.ListField(
        child=serializers.CharField(max_length=16),
        required=False,
        max_length=3,
        help_text=VERDICTS_HELP,
    )


class SourceAddSerializer(StrictSerializer):
    """One source, added by a filter or by ids."""

    experiment = serializers.UUIDField(required=False, help_text="its results, by `filter`")
    rule = serializers.UUIDField(required=False, help_text="an online rule: what it judged")
    verdicts = _verdicts()
    filter = serializers.DictField(
        required=False,
        help_text="the results grid's filters: evaluator, status, tag, q, score_min, score_max",
    )
    sampling_rate = serializers.FloatField(
        required=False, default=1.0, min_value=0.0, max_value=1.0, help_text="0-1"
    )
    sessions = serializers.ListField(
        child=serializers.CharField(max_length=256), required=False, max_length=1000
    )
    spans = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=1000,
        help_text='"<trace id>:<span id>"',
    )
    span_filter = SpanFilterSerializer(
        required=False, help_text="the span list's filters; `limit` spans, newest first"
    )
    trace_filter = TraceFilterSerializer(
        required=False, help_text="the trace list's filters; `limit` traces, newest first"
    )

    def validate(self, data):
        sent = [key for key in SOURCE_KEYS if data.get(key)]
        if len(sent) != 1:
            raise serializers.ValidationError(
                {"experiment": _("Send one source: %(keys)s.") % {"keys": ", ".join(SOURCE_KEYS)}}
            )
        return data


class FeedSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    rule = serializers.UUIDField(source="rule.public_id", default=None, read_only=True)
    rule_name = serializers.CharField(source="rule.name", default=None, read_only=True)
    experiment = serializers.UUIDField(source="experiment.public_id", default=None, read_only=True)
    experiment_name = serializers.CharField(source="experiment.name", default=None, read_only=True)

    class Meta:
        model = QueueFeed
        fields = [
            "id",
            "kind",
            "rule",
            "rule_name",
            "experiment",
            "experiment_name",
            "verdicts",
            "filter",
            "sampling_rate",
            "active",
            "done",
            "added",
            "swept_at",
            "created_at",
        ]
        read_only_fields = fields


class FeedWriteSerializer(StrictSerializer):
    """POST (`kind` and its `rule` or `experiment` required) and PATCH (not those)."""

    kind = serializers.ChoiceField(choices=FeedKind.choices)
    rule = serializers.UUIDField(required=False, help_text="an online rule's id (kind online_rule)")
    experiment = serializers.UUIDField(required=False, help_text="kind experiment")
    verdicts = _verdicts()
    filter = serializers.DictField(
        required=False, help_text="an experiment's: the results grid's filters"
    )
    sampling_rate = serializers.FloatField(
        required=False, help_text="the share of matching items taken, above 0 and at most 1"
    )
    active = serializers.BooleanField(required=False)


class AssignmentSerializer(StrictSerializer):
    open_to = serializers.ChoiceField(
        choices=QueueAccess.choices,
        help_text="reviewers (editors and owners), owners, or assigned (only `assignees`)",
    )
    assignees = serializers.ListField(
        child=serializers.CharField(max_length=150),
        required=False,
        default=list,
        max_length=100,
        help_text="usernames of editors or owners (with open_to assigned)",
    )
