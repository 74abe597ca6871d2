"""The API's bodies and answers of experiments: create, push outputs, re-score, clone, mark a
baseline, test a target, the run and its bindings. Validation of the set-up lives in the
services."""

from __future__ import annotations

from django.utils.translation import gettext as _
from rest_framework import serializers

from assay.api.serializers import StrictSerializer
from evaluators.policies import describe_policy

from .. import selectors
from ..models import EvaluatorBinding, Experiment


class ExperimentCreateSerializer(StrictSerializer):
    """The body of POST /experiments/; `launch: true` creates and launches in one call.

    A binding is {evaluator_version: <public id>, mapping?, policy?, ext?, applies_to?,
    per_turn?, turn_source?, turn_aggregate?}; the service checks each one and names problems
    by path (bindings[0].mapping).
    """

    name = serializers.CharField(max_length=160, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    probe_name = serializers.CharField(required=False, allow_blank=True, default="", max_length=160)
    evalset_version = serializers.CharField(
        max_length=200, help_text='A public id, or "evalset name@version".'
    )
    target = serializers.JSONField(required=False, allow_null=True)
    bindings = serializers.ListField(
        child=serializers.DictField(),
        allow_empty=True,
        help_text='[{evaluator_version: id or "name@version", mapping?, policy?, ext?, '
        "applies_to?, per_turn?, turn_source?, turn_aggregate? (all_pass | mean | min)}]",
    )
    concurrency = serializers.IntegerField(required=False, default=8)
    chunk_size = serializers.IntegerField(required=False, default=1000)
    repetitions = serializers.IntegerField(required=False, default=1)
    interval = serializers.JSONField(
        required=False,
        default=None,
        help_text="method (bootstrap|none), iterations, confidence, min_sample, exact_garak, "
        "seed; unset ones come from the workspace's defaults, then garak's",
    )
    launch = serializers.BooleanField(required=False, default=False)

    def validate_target(self, value):
        if value is not None and not isinstance(value, dict):
            raise serializers.ValidationError(_("The target is an object with a kind."))
        return value


class OutputsPushSerializer(StrictSerializer):
    """Outputs a client computed: [{item_id, repeat?, actual_output, trajectory?, latency_ms?,
    tokens_in?, tokens_out?, cost?, error?}], at most 1,000 per push."""

    outputs = serializers.ListField(child=serializers.JSONField(), allow_empty=False)


class PushedSerializer(serializers.Serializer):
    accepted = serializers.IntegerField(help_text="new outputs stored")
    duplicates = serializers.IntegerField(help_text="outputs for rows that already had one")


class RescoreSerializer(StrictSerializer):
    """Evaluator versions to score a finished run's outputs with (ids or "name@version")."""

    bindings = serializers.ListField(child=serializers.DictField(), allow_empty=False)
    name = serializers.CharField(max_length=160, required=False, allow_blank=True, default="")
    launch = serializers.BooleanField(required=False, default=True)


class BaselineSerializer(StrictSerializer):
    is_baseline = serializers.BooleanField()


class IntervalDefaultsSerializer(StrictSerializer):
    interval = serializers.JSONField()


class TargetTestSerializer(StrictSerializer):
    """A target to try on one row: the experiment body's evalset version and target."""

    evalset_version = serializers.CharField(max_length=200)
    target = serializers.JSONField()
    item_id = serializers.UUIDField(required=False, allow_null=True)


class CloneSerializer(StrictSerializer):
    """`versions` maps an evaluator's public id to the version string to use instead."""

    name = serializers.CharField(max_length=160, required=False, allow_blank=True)
    versions = serializers.DictField(child=serializers.CharField(max_length=64), required=False)
    evalset_version = serializers.CharField(max_length=200, required=False, allow_null=True)


class BindingSerializer(serializers.ModelSerializer):
    evaluator = serializers.UUIDField(source="evaluator_version.evaluator.public_id")
    evaluator_name = serializers.CharField(source="evaluator_version.evaluator.name")
    evaluator_version = serializers.UUIDField(source="evaluator_version.public_id")
    version = serializers.CharField(source="evaluator_version.version")
    kind = serializers.CharField(source="evaluator_version.kind")
    score_meaning = serializers.CharField(source="evaluator_version.score_meaning")
    policy_text = serializers.SerializerMethodField()
    summary = serializers.SerializerMethodField()

    class Meta:
        model = EvaluatorBinding
        fields = [
            "id",
            "evaluator",
            "evaluator_name",
            "evaluator_version",
            "version",
            "kind",
            "score_meaning",
            "mapping",
            "policy",
            "policy_text",
            "ext",
            "applies_to",
            "per_turn",
            "turn_source",
            "turn_aggregate",
            "summary",
        ]
        read_only_fields = fields

    def get_policy_text(self, obj) -> str:
        return describe_policy(obj.policy, obj.evaluator_version.score_meaning)

    def get_summary(self, obj) -> dict | None:
        aggregate = getattr(obj, "aggregate", None)  # selected with the binding (no query each)
        return aggregate.summary if aggregate is not None else None


class ExperimentListSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    evalset = serializers.UUIDField(source="evalset_version.evalset.public_id")
    evalset_name = serializers.CharField(source="evalset_version.evalset.name")
    evalset_version = serializers.UUIDField(source="evalset_version.public_id")
    evalset_version_string = serializers.CharField(source="evalset_version.version")
    created_by = serializers.CharField(source="created_by.username", default=None)
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Experiment
        fields = [
            "id",
            "name",
            "description",
            "probe_name",
            "interval",
            "status",
            "evalset",
            "evalset_name",
            "evalset_version",
            "evalset_version_string",
            "target_kind",
            "repetitions",
            "is_baseline",
            "progress",
            "results_done",
            "results_total",
            "items_total",
            "created_by",
            "created_at",
            "queued_at",
            "started_at",
            "finished_at",
            "error_message",
        ]
        read_only_fields = fields

    def get_progress(self, obj) -> dict:
        return selectors.experiment_progress(obj)


class ExperimentSerializer(ExperimentListSerializer):
    """One experiment with its set-up, counters, throughput and ETA."""

    target = serializers.SerializerMethodField()
    bindings = serializers.SerializerMethodField()
    counts = serializers.SerializerMethodField()
    cloned_from = serializers.UUIDField(source="cloned_from.public_id", default=None)
    outputs_from = serializers.UUIDField(source="outputs_from.public_id", default=None)
    outputs_received = serializers.SerializerMethodField()

    class Meta(ExperimentListSerializer.Meta):
        fields = ExperimentListSerializer.Meta.fields + [
            "target",
            "target_summary",
            "outputs_from",
            "outputs_received",
            "bindings",
            "counts",
            "concurrency",
            "chunk_size",
            "chunks_done",
            "chunks_total",
            "retry_round",
            "cancel_requested",
            "heartbeat_at",
            "cloned_from",
        ]
        read_only_fields = fields

    def get_target(self, obj) -> dict:
        return {"kind": obj.target_kind, **obj.target_spec.public_config(obj.target_config)}

    def get_outputs_received(self, obj) -> int:
        """Target outputs stored so far (pushed or computed), over items × repetitions."""
        return obj.target_results.count() if obj.target_spec.produces_output else 0

    def get_bindings(self, obj) -> list[dict]:
        rows = obj.bindings.select_related("evaluator_version__evaluator", "aggregate")
        return BindingSerializer(rows, many=True).data

    def get_counts(self, obj) -> dict:
        return selectors.result_counts(experiment=obj)


class RetriedSerializer(serializers.Serializer):
    retried = serializers.IntegerField(help_text="Rows run again: target_rows + evaluator_rows.")
    target_rows = serializers.IntegerField(
        help_text="Rows (and repetitions) whose target call failed: called again, then scored."
    )
    evaluator_rows = serializers.IntegerField(
        help_text="Rows whose evaluator errored or timed out, or never wrote a result."
    )
    experiment = ExperimentSerializer()
