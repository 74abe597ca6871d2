"""API shapes of human review."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from assay.api.serializers import StrictSerializer

from ..models import (
    DEFAULT_RESERVATION_MINUTES,
    Adjudication,
    AnnotationQueue,
    Label,
    QueueItem,
    QueueKind,
    ScoreConfig,
    ScoreKind,
)

# the keys naming an items body's source (exactly one is sent)
SOURCE_KEYS = ("results", "traces", "evalset_version", "pairwise_run", "experiments")


class ScoreConfigSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)

    class Meta:
        model = ScoreConfig
        fields = ["id", *ScoreConfig.SETTINGS, "created_at", "updated_at"]
        read_only_fields = fields


class ScoreConfigWriteSerializer(StrictSerializer):
    """The body of POST (`name` and `kind` required) and PATCH."""

    name = serializers.CharField(max_length=160, allow_blank=True)
    kind = serializers.ChoiceField(choices=ScoreKind.choices)
    labels = serializers.JSONField(
        required=False, help_text="categorical: the labels (2-50 texts), in their order"
    )
    ordered = serializers.BooleanField(
        required=False, help_text="categorical: the labels' order means something (ordinal)"
    )
    minimum = serializers.FloatField(required=False, allow_null=True, help_text="numeric")
    maximum = serializers.FloatField(required=False, allow_null=True, help_text="numeric")
    step = serializers.FloatField(required=False, allow_null=True, help_text="numeric, above 0")
    rubric = serializers.CharField(required=False, allow_blank=True, help_text="shown to reviewers")
    pass_labels = serializers.JSONField(
        required=False,
        help_text="labels comparable to an evaluator's pass (boolean: true/false; categorical: "
        "its labels)",
    )
    fail_labels = serializers.JSONField(required=False, help_text="labels comparable to a fail")


class AnnotationQueueSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    score_configs = serializers.SlugRelatedField(slug_field="public_id", many=True, read_only=True)
    adjudicators = serializers.SlugRelatedField(slug_field="username", many=True, read_only=True)
    assignees = serializers.SlugRelatedField(slug_field="username", many=True, read_only=True)

    class Meta:
        model = AnnotationQueue
        fields = [
            "id",
            "name",
            "kind",
            "score_configs",
            "reviewers_per_item",
            "reservation_minutes",
            "blind",
            "adjudicators",
            "open_to",
            "assignees",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields


class AnnotationQueueWriteSerializer(StrictSerializer):
    name = serializers.CharField(max_length=160, allow_blank=True)
    kind = serializers.ChoiceField(
        choices=QueueKind.choices,
        default=QueueKind.SINGLE,
        help_text="single outputs, or pairwise (two outputs compared: A, B or tie); fixed",
    )
    score_configs = serializers.ListField(
        child=serializers.CharField(), help_text="ids of the workspace's score configs"
    )
    reviewers_per_item = serializers.IntegerField(default=1, help_text="1-10")
    reservation_minutes = serializers.IntegerField(
        default=DEFAULT_RESERVATION_MINUTES, help_text="how long a reviewer holds an item"
    )
    blind = serializers.BooleanField(
        default=False, help_text="reviewers see neither the judges' verdicts nor others' labels"
    )
    adjudicators = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        max_length=100,
        help_text="usernames of members who adjudicate besides the owners (owners set it)",
    )


class ItemsAddSerializer(StrictSerializer):
    """One source: an experiment's results, traces, an evalset version's rows, or (pairwise
    queues) a pairwise run's pairs or two experiments' outputs on the same rows."""

    experiment = serializers.UUIDField(required=False, help_text="with `results`")
    results = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        max_length=1000,
        help_text="result ids of `experiment`",
    )
    traces = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=1000,
        help_text="trace ids (32 hex digits) of the workspace",
    )
    evalset_version = serializers.CharField(
        required=False, max_length=200, help_text="an evalset version's id, with `rows` or `all`"
    )
    all = serializers.BooleanField(
        required=False,
        default=False,
        help_text="every row of `evalset_version`, every pair of `pairwise_run` (its first "
        "repetition) or every row both `experiments` ran (at most 1,000)",
    )
    rows = serializers.ListField(
        child=serializers.CharField(max_length=64),
        required=False,
        max_length=1000,
        help_text="row (item) ids of `evalset_version`, or of both `experiments`",
    )
    pairwise_run = serializers.UUIDField(required=False, help_text="with `pairs`")
    pairs = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        max_length=1000,
        help_text="ids of the judged pairs of `pairwise_run` (pairwise queues)",
    )
    experiments = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        min_length=2,
        max_length=2,
        help_text="two finished experiments' ids on one evalset, A then B, with `rows` "
        "(pairwise queues)",
    )

    NEEDS = {"results": "experiment", "pairwise_run": "pairs", "experiments": "rows"}

    def validate(self, data):
        given = [key for key in SOURCE_KEYS if data.get(key)]
        if len(given) != 1:
            raise serializers.ValidationError(
                {
                    "results": _(
                        "Send one source: experiment with results, traces, "
                        "evalset_version with rows or all, pairwise_run with pairs, or experiments "
                        "with rows."
                    )
                }
            )
        needed = self.NEEDS.get(given[0])
        if needed and not data.get(needed) and not (data.get("all") and given[0] != "results"):
            raise serializers.ValidationError(
                {needed: _("Send it with %(key)s.") % {"key": given[0]}}
            )
        if given[0] == "evalset_version" and bool(data.get("rows")) == bool(data.get("all")):
            raise serializers.ValidationError({"rows": _("Send rows, or all: true.")})
        return data


class LabelSerializer(serializers.ModelSerializer):
    score_config = serializers.UUIDField(source="score_config.public_id")
    reviewer = serializers.CharField(source="reviewer.username")

    class Meta:
        model = Label
        fields = ["score_config", "reviewer", "value", "note", "created_at"]
        read_only_fields = fields


class QueueItemSerializer(serializers.ModelSerializer):
    """An item as its reader may see it: `judge`, `source_ref` (the result or trace shows the
    verdicts) and others' labels only outside blind mode (the view passes `shown_labels` and
    `blind` in the context)."""

    id = serializers.UUIDField(source="public_id", read_only=True)
    source_ref = serializers.SerializerMethodField(
        help_text="the result's or trace's id; null in blind mode (it leads to the verdicts)"
    )
    judge = serializers.SerializerMethodField()
    labels = serializers.SerializerMethodField()
    snapshot = serializers.SerializerMethodField()
    order = serializers.SerializerMethodField(
        help_text="a pairwise item as the reader is shown it: the sides left then right "
        '(["B", "A"]: B on the left), once they hold a slot on it; labels name sides'
    )

    class Meta:
        model = QueueItem
        fields = [
            "id",
            "source_kind",
            "source_ref",
            "snapshot",
            "judge",
            "labels",
            "order",
            "created_at",
        ]
        read_only_fields = fields

    def get_source_ref(self, item) -> str | None:
        return None if self.context.get("blind") else item.source_ref

    def get_snapshot(self, item) -> dict:
        """Which experiment each side of a pair is shows only outside blind mode."""
        if self.context.get("blind") and "sides" in item.snapshot:
            return {k: v for k, v in item.snapshot.items() if k != "sides"}
        return item.snapshot

    def get_order(self, item) -> list[str] | None:
        return self.context.get("orders", {}).get(item.pk)

    def get_judge(self, item) -> list | None:
        return None if self.context.get("blind") else item.judge

    def get_labels(self, item) -> list[dict]:
        labels = self.context.get("shown_labels", {}).get(item.pk, [])
        return LabelSerializer(labels, many=True).data


class LabelsWriteSerializer(StrictSerializer):
    values = serializers.DictField(
        child=serializers.JSONField(allow_null=True),
        help_text="score config id → label (null: unknown), one for each of the queue's configs",
    )
    note = serializers.CharField(required=False, allow_blank=True, default="")


class SkipSerializer(StrictSerializer):
    reason = serializers.CharField(allow_blank=True, help_text="why the item is skipped")


class AdjudicationSerializer(serializers.ModelSerializer):
    score_config = serializers.UUIDField(source="score_config.public_id")
    adjudicator = serializers.CharField(source="adjudicator.username", default=None)

    class Meta:
        model = Adjudication
        fields = ["score_config", "adjudicator", "value", "note", "updated_at"]
        read_only_fields = fields


class AdjudicateSerializer(StrictSerializer):
    values = serializers.DictField(
        child=serializers.JSONField(allow_null=True),
        help_text="score config id → the final label (known), for the configs settled",
    )
    note = serializers.CharField(required=False, allow_blank=True, default="")


class DisagreementSerializer(QueueItemSerializer):
    """An item waiting for adjudication (the schema's shape; the view adds `disagree_on`)."""

    disagree_on = serializers.ListField(
        child=serializers.UUIDField(), read_only=True, help_text="the configs' ids"
    )

    class Meta(QueueItemSerializer.Meta):
        fields = [*QueueItemSerializer.Meta.fields, "disagree_on"]
        read_only_fields = fields


class DisagreementsSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    results = DisagreementSerializer(many=True)
