"""Serializers for pairwise runs and their pairs. Checking the set-up is the service's."""

from __future__ import annotations

from rest_framework import serializers

from assay.api.serializers import StrictSerializer

from ..models import PairwiseResult, PairwiseRun
from .selectors import run_experiments


class PairwiseRunCreateSerializer(StrictSerializer):
    """The body of POST /pairwise-runs/: the experiments in order (the first is the baseline,
    A) and the pairwise judge; the run is launched at once."""

    name = serializers.CharField(max_length=160, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    experiments = serializers.ListField(
        child=serializers.CharField(max_length=64),
        allow_empty=True,
        help_text="Experiment ids, two to eight, on one evalset; the first is the baseline (A).",
    )
    evaluator_version = serializers.CharField(
        max_length=200, help_text='A pairwise judge\'s version: a public id, or "name@version".'
    )
    mapping = serializers.DictField(
        child=serializers.CharField(),
        required=False,
        default=None,
        help_text=(
            "The judge's other variables → column:<name>; when unset, as the experiments' own "
            "bindings map them, else a column of that name or a synonym (question → input)."
        ),
    )
    repetitions = serializers.IntegerField(required=False, default=1)
    concurrency = serializers.IntegerField(required=False, default=8)
    chunk_size = serializers.IntegerField(required=False, default=100)
    interval = serializers.JSONField(required=False, default=None)


class EntrySerializer(serializers.Serializer):
    id = serializers.UUIDField(source="public_id")
    name = serializers.CharField()
    evalset_version = serializers.CharField(source="evalset_version.version")
    status = serializers.CharField()


class PairwiseRunSerializer(serializers.ModelSerializer):
    """A pairwise run with its experiments in order, progress and stored statistics."""

    id = serializers.UUIDField(source="public_id", read_only=True)
    evalset = serializers.UUIDField(source="evalset.public_id")
    evalset_name = serializers.CharField(source="evalset.name")
    evaluator = serializers.UUIDField(source="evaluator_version.evaluator.public_id")
    evaluator_name = serializers.CharField(source="evaluator_version.evaluator.name")
    evaluator_version = serializers.CharField(source="evaluator_version.version")
    experiments = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()

    class Meta:
        model = PairwiseRun
        fields = [
            "id",
            "name",
            "description",
            "status",
            "cancel_requested",
            "evalset",
            "evalset_name",
            "evaluator",
            "evaluator_name",
            "evaluator_version",
            "experiments",
            "mapping",
            "repetitions",
            "concurrency",
            "chunk_size",
            "interval",
            "progress",
            "error_message",
            "summary",
            "summary_at",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_experiments(self, run) -> list[dict]:
        """The experiments in the run's order; the first is the baseline, A."""
        return EntrySerializer(run_experiments(run=run), many=True).data

    def get_progress(self, run) -> dict:
        """Judged pairs and chunks, done and in all."""
        return {
            "results_done": run.results_done,
            "results_total": run.results_total,
            "percent": round(run.progress_percent, 1),
            "chunks_done": run.chunks_done,
            "chunks_total": run.chunks_total,
            "items_total": run.items_total,
        }


class PairwiseRunListSerializer(PairwiseRunSerializer):
    class Meta(PairwiseRunSerializer.Meta):
        fields = [f for f in PairwiseRunSerializer.Meta.fields if f != "summary"]
        read_only_fields = fields


class PairwiseResultSerializer(serializers.ModelSerializer):
    """One judged pair: the outcome (A = the pair's first experiment), both orders' answers
    as the judge said them ("A": the output shown first) and their reasons."""

    item_id = serializers.UUIDField(source="item_uid")
    experiment_a = serializers.UUIDField(source="experiment_a.public_id")
    experiment_b = serializers.UUIDField(source="experiment_b.public_id")

    class Meta:
        model = PairwiseResult
        fields = [
            "id",
            "item_id",
            "position",
            "repeat",
            "tags",
            "experiment_a",
            "experiment_b",
            *PairwiseResult.JUDGED_FIELDS,
            "attempt",
        ]
        read_only_fields = fields


class PairwiseResultDetailSerializer(PairwiseResultSerializer):
    """A pair with the judge's turn, both rendered requests and both raw answers."""

    class Meta(PairwiseResultSerializer.Meta):
        fields = PairwiseResultSerializer.Meta.fields + [
            "input",
            "request_ab",
            "request_ba",
            "raw_ab",
            "raw_ba",
        ]
        read_only_fields = fields


class PairwiseRetriedSerializer(serializers.Serializer):
    retried = serializers.IntegerField()
    run = PairwiseRunSerializer()
