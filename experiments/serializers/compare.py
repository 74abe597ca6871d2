"""The API's answer of compare (read-only): runs, evaluators, sides, rows and diffs."""

from __future__ import annotations

from rest_framework import serializers

from assay.vocabulary import VERDICTS

# how a row's verdict moved from baseline to candidate (the docs' RowChangeEnum)
ROW_CHANGES = (
    "regression",
    "improvement",
    "unknown flip",
    "unchanged",
    "only in baseline",
    "only in candidate",
)


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
