"""Serializers for experiments and results. Validation of the set-up lives in the services."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assay.api.serializers import StrictSerializer
from assay.vocabulary import VERDICTS
from evaluators.policies import describe_policy

from . import selectors
from .models import (
    EvaluatorBinding,
    Experiment,
    GarakImport,
    GarakReference,
    GateDecision,
    Result,
)
from .results import gate
from .scoring.turns import result_turn


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


class GateQuerySerializer(StrictSerializer):
    """`baseline`: an experiment id, or "latest" (the newest completed baseline on the
    candidate's evalset)."""

    baseline = serializers.CharField(max_length=64)
    candidate = serializers.UUIDField()
    alpha = serializers.FloatField(required=False, default=gate.DEFAULT_ALPHA)
    max_drop = serializers.FloatField(required=False, default=gate.DEFAULT_MAX_DROP)
    max_unknown_rate = serializers.FloatField(required=False, default=gate.DEFAULT_MAX_UNKNOWN_RATE)
    min_decided = serializers.IntegerField(required=False, default=gate.DEFAULT_MIN_DECIDED)
    # read by the API's workspace selection (session callers), like on every other endpoint
    workspace = serializers.CharField(required=False, write_only=True)


class GateDecisionSerializer(serializers.ModelSerializer):
    """What a POST to the gate recorded: when, and when its first failure was announced."""

    class Meta:
        model = GateDecision
        fields = ["decided_at", "failure_announced_at"]
        read_only_fields = fields


class GateCheckSerializer(serializers.ModelSerializer):
    """A recorded check of a run by the CI gate: against which baseline, at which options, the
    decision and its reasons, when and by whom it was last posted."""

    baseline = serializers.SerializerMethodField()
    decided_by = serializers.CharField(source="decided_by.username", default=None)

    class Meta:
        model = GateDecision
        fields = [
            "baseline",
            "alpha",
            "max_drop",
            "max_unknown_rate",
            "min_decided",
            "passed",
            "reasons",
            "decided_at",
            "decided_by",
            "failure_announced_at",
        ]
        read_only_fields = fields

    def get_baseline(self, obj) -> dict:
        return {"id": str(obj.baseline.public_id), "name": obj.baseline.name}


class IntervalDefaultsSerializer(StrictSerializer):
    interval = serializers.JSONField()


class GarakReferenceSerializer(serializers.ModelSerializer):
    entries = serializers.SerializerMethodField()

    class Meta:
        model = GarakReference
        fields = ["id", "kind", "name", "entries", "created_at"]
        read_only_fields = fields

    def get_entries(self, obj) -> int:
        return len(obj.entries)


class GarakImportSerializer(StrictSerializer):
    """A garak report.jsonl (multipart `file`)."""

    file = serializers.FileField()


class GarakScanImportSerializer(GarakImportSerializer):
    """A garak report.jsonl (multipart `file`), with the run's threshold when it is known and
    whether a report cut short may be imported as partial."""

    threshold = serializers.FloatField(
        required=False,
        min_value=0.0,
        max_value=1.0,
        help_text="garak's --eval_threshold for the run; unset: read from the report's counts",
    )
    partial = serializers.BooleanField(
        required=False,
        default=False,
        help_text="import a report without its closing completion entry (what it holds)",
    )


class GarakImportJobSerializer(serializers.ModelSerializer):
    """A garak import job: its status, probes done of N, the experiments made, the notes and
    a failed one's message (in the reader's language), and the URL to poll."""

    id = serializers.UUIDField(source="public_id", read_only=True)
    percent = serializers.IntegerField(read_only=True)
    experiments = serializers.SerializerMethodField()
    notes = serializers.ListField(source="notes_shown", child=serializers.CharField())
    message = serializers.CharField(source="message_shown")
    poll_url = serializers.SerializerMethodField()

    class Meta:
        model = GarakImport
        fields = [
            "id",
            "status",
            "file_name",
            "file_size",
            "threshold",
            "partial",
            "run_id",
            "probes_total",
            "probes_done",
            "percent",
            "already",
            "experiments",
            "notes",
            "message",
            "created_at",
            "started_at",
            "finished_at",
            "poll_url",
        ]
        read_only_fields = fields

    def get_experiments(self, obj) -> list[dict]:
        rows = obj.experiments.select_related("evalset_version__evalset", "created_by")
        return ExperimentListSerializer(rows.order_by("pk"), many=True).data

    def get_poll_url(self, obj) -> str:
        path = reverse("garak-import-detail", kwargs={"id": obj.public_id})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


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


class ResultSerializer(serializers.ModelSerializer):
    """A result row for the table; the detail adds the exact input and raw answer."""

    # read through the item (selectors.ITEM_UID annotates it): results do not copy it
    item_id = serializers.UUIDField(source="item_uid")
    binding = serializers.IntegerField(source="binding_id")
    evaluator = serializers.UUIDField(source="binding.evaluator_version.evaluator.public_id")
    evaluator_name = serializers.CharField(source="binding.evaluator_version.evaluator.name")
    evaluator_version = serializers.CharField(source="binding.evaluator_version.version")
    final_verdict = serializers.CharField()
    row_number = serializers.IntegerField(
        read_only=True, help_text="The item's row number in its evalset version (position + 1)."
    )

    class Meta:
        model = Result
        fields = [
            "id",
            "item_id",
            "position",
            "row_number",
            "repeat",
            "tags",
            "binding",
            "turn",
            "evaluator",
            "evaluator_name",
            "evaluator_version",
            "status",
            "score",
            "reason",
            "verdict",
            "human_verdict",
            "human_score",
            "final_verdict",
            "correction_note",
            "error",
            "latency_ms",
            "tokens_in",
            "tokens_out",
            "attempt",
            "cached",
        ]
        read_only_fields = fields


class ResultDetailSerializer(ResultSerializer):
    input = serializers.SerializerMethodField(
        help_text="The exact turn the evaluator received (rebuilt from the row, the target's "
        "output and the mapping, which are stored once)."
    )

    class Meta(ResultSerializer.Meta):
        fields = ResultSerializer.Meta.fields + [
            "stdout",
            "input",
            "rendered_request",
            "raw_answer",
        ]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_input(self, result) -> dict:
        return result_turn(result=result)


class GridResultSerializer(ResultSerializer):
    """One evaluator's result inside a results-grid row."""

    class Meta(ResultSerializer.Meta):
        fields = [
            f for f in ResultSerializer.Meta.fields if f not in ("item_id", "position", "tags")
        ]
        read_only_fields = fields


class GridOutputSerializer(serializers.Serializer):
    status = serializers.CharField()
    text = serializers.CharField(help_text="The target's output, first 2,000 characters.")
    truncated = serializers.BooleanField()
    error = serializers.CharField()


class GridTargetSerializer(serializers.Serializer):
    """The target's row of one repetition: how it went and what it cost."""

    repeat = serializers.IntegerField()
    status = serializers.CharField()
    latency_ms = serializers.FloatField(help_text="For a re-score: the source run's call.")
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cost = serializers.FloatField(allow_null=True, help_text="USD; null when not priced.")


class GridItemSerializer(serializers.Serializer):
    """One row of the results grid: an item with every evaluator's results on it."""

    item_id = serializers.UUIDField(source="uid")
    row_number = serializers.IntegerField(source="number")
    tags = serializers.ListField(child=serializers.CharField(), source="item.tags")
    data = serializers.JSONField(source="item.data")
    output = serializers.SerializerMethodField()
    target = GridTargetSerializer(
        many=True,
        allow_null=True,
        help_text="The target's row per repetition (null: the run has no target).",
    )
    results = serializers.SerializerMethodField()

    @extend_schema_field(GridOutputSerializer(allow_null=True))
    def get_output(self, row):
        output = row["output"]
        if output is None:
            return None
        cell = output["cell"]
        text = {"text": cell.full, "truncated": cell.clipped}
        return {"status": output["status"], "error": output["error"], **text}

    def get_results(self, row) -> GridResultSerializer(many=True):
        found = [r for cell in row["evaluators"] for r in cell.results]
        return GridResultSerializer(found, many=True).data


class RetriedSerializer(serializers.Serializer):
    retried = serializers.IntegerField(help_text="Rows run again: target_rows + evaluator_rows.")
    target_rows = serializers.IntegerField(
        help_text="Rows (and repetitions) whose target call failed: called again, then scored."
    )
    evaluator_rows = serializers.IntegerField(
        help_text="Rows whose evaluator errored or timed out, or never wrote a result."
    )
    experiment = ExperimentSerializer()


class CorrectionSerializer(StrictSerializer):
    """A human correction of one result; an empty verdict undoes it."""

    verdict = serializers.ChoiceField(choices=[*VERDICTS, ""], allow_blank=True)
    score = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1)
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000)


# ----------------------------------------------------------------------------- compare (read-only)
# The shape of GET /api/v1/compare, for the API docs: the view builds the body itself.


class CompareRunSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    evalset_version = serializers.CharField()


class CompareEvaluatorSerializer(serializers.Serializer):
    evaluator_id = serializers.IntegerField(help_text="Pass it as `evaluator` to diff its rows.")
    name = serializers.CharField()
    baseline_version = serializers.CharField()
    candidate_version = serializers.CharField()
    versions_differ = serializers.BooleanField()
    stats = serializers.DictField(
        help_text="Paired statistics over the items both runs scored: n_paired, n_decided, "
        "regressions and improvements (item ids), to_unknown, from_unknown, counts, "
        "pass_rate_baseline, pass_rate_candidate, pass_rate_delta and pass_rate_delta_ci, "
        "mean_score_delta and its interval, mcnemar_p, confidence and plain_words."
    )


class CompareCandidateSerializer(CompareRunSerializer):
    unmatched = serializers.ListField(
        child=serializers.CharField(), help_text="Evaluators that only one of the two runs has."
    )
    evaluators = CompareEvaluatorSerializer(many=True)


class CompareSideSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=VERDICTS, help_text="the corrected one, if any")
    score = serializers.FloatField(allow_null=True)
    status = serializers.CharField()
    reason = serializers.CharField()
    input = serializers.JSONField()


# how a row's verdict moved from baseline to candidate (the docs' RowChangeEnum)
ROW_CHANGES = (
    "regression",
    "improvement",
    "unknown flip",
    "unchanged",
    "only in baseline",
    "only in candidate",
)


class CompareRowSerializer(serializers.Serializer):
    item_id = serializers.CharField()
    kind = serializers.ChoiceField(choices=ROW_CHANGES)
    baseline = CompareSideSerializer(allow_null=True)
    candidate = CompareSideSerializer(allow_null=True)


class CompareDiffSerializer(serializers.Serializer):
    candidate = serializers.UUIDField()
    evaluator_id = serializers.IntegerField(allow_null=True)
    filter = serializers.CharField()
    count = serializers.IntegerField(help_text="rows that match the filter, over all pages")
    page = serializers.IntegerField()
    results = CompareRowSerializer(many=True)


class CompareSerializer(serializers.Serializer):
    baseline = CompareRunSerializer()
    candidates = CompareCandidateSerializer(many=True)
    diff = CompareDiffSerializer(help_text="One page of the row diff of one candidate.")
