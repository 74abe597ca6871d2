"""The API's bodies and answers of the CI gate: the check's options, what a POST recorded,
and the recorded checks of a run."""

from __future__ import annotations

from rest_framework import serializers

from assay.api.serializers import StrictSerializer

from ..models import GateDecision
from ..results import gate
from ..results.gate import decision_reasons


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
    reasons = serializers.SerializerMethodField()
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

    def get_reasons(self, obj) -> list[str]:
        """Worded in the request's language from the rows the check stored."""
        return decision_reasons(obj)

    def get_baseline(self, obj) -> dict:
        return {"id": str(obj.baseline.public_id), "name": obj.baseline.name}
