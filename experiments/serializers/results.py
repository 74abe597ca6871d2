"""The API's answers of results: a row's result (and its turn), the results grid, a
correction's body."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assay.api.serializers import StrictSerializer
from assay.vocabulary import VERDICTS

from ..models import Result
from ..scoring.turns import result_turn


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


class CorrectionSerializer(StrictSerializer):
    """A human correction of one result; an empty verdict undoes it."""

    verdict = serializers.ChoiceField(choices=[*VERDICTS, ""], allow_blank=True)
    score = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=1)
    note = serializers.CharField(required=False, allow_blank=True, max_length=2000)
