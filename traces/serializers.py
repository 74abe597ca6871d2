"""API shapes of traces: ingest keys (the key itself only in the answer to its creation),
spans, traces and the lists' filters."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assay.api.serializers import StrictSerializer

from .models import IngestKey, Span, SpanKind, SpanStatus


class IngestKeySerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)

    class Meta:
        model = IngestKey
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class IngestKeyCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=120)


class IssuedIngestKeySerializer(IngestKeySerializer):
    key = serializers.CharField(
        read_only=True,
        help_text="Shown once; store it now. Exporters send it as `Authorization: Bearer <key>`.",
    )

    class Meta(IngestKeySerializer.Meta):
        fields = IngestKeySerializer.Meta.fields + ["key"]


class SpanSerializer(serializers.ModelSerializer):
    """A stored span: typed columns and its capped raw attributes."""

    class Meta:
        model = Span
        fields = [
            "trace_id",
            "span_id",
            "parent_span_id",
            "name",
            "service",
            "kind",
            "model",
            "input_text",
            "output_text",
            "input_messages",
            "output_messages",
            "tokens_in",
            "tokens_out",
            "cost",
            "session_id",
            "user_id",
            "environment",
            "status",
            "error",
            "start_time",
            "end_time",
            "duration_ms",
            "attributes",
            "received_at",
        ]
        read_only_fields = fields


class SpanNodeSerializer(serializers.Serializer):
    """A span in a trace's tree, with the spans it is the parent of."""

    span = SpanSerializer()
    parent_missing = serializers.BooleanField(
        required=False, help_text="The span names a parent that has not arrived."
    )
    children = serializers.SerializerMethodField()

    @extend_schema_field({"type": "array", "items": {"type": "object"}})
    def get_children(self, node) -> list:
        return SpanNodeSerializer(node["children"], many=True).data


class TraceSerializer(serializers.Serializer):
    trace_id = serializers.CharField()
    spans = SpanNodeSerializer(many=True, help_text="The roots of the span tree.")


class TraceSummarySerializer(serializers.Serializer):
    trace_id = serializers.CharField()
    root_name = serializers.CharField(allow_null=True, help_text="Empty until the root arrives.")
    service = serializers.CharField(allow_null=True)
    session_id = serializers.CharField()
    start_time = serializers.DateTimeField()
    end_time = serializers.DateTimeField()
    spans = serializers.IntegerField()
    errors = serializers.IntegerField()
    tokens_in = serializers.IntegerField(allow_null=True)
    tokens_out = serializers.IntegerField(allow_null=True)
    cost = serializers.FloatField(allow_null=True)


class SpanFilterSerializer(serializers.Serializer):
    """The query of the span and trace lists (every filter optional, all must hold)."""

    trace_id = serializers.RegexField(r"^[0-9a-fA-F]{32}$", required=False)
    service = serializers.CharField(required=False, max_length=128)
    name = serializers.CharField(required=False, max_length=256)
    kind = serializers.ChoiceField(choices=SpanKind.choices, required=False)
    model = serializers.CharField(required=False, max_length=200)
    environment = serializers.CharField(required=False, max_length=64)
    status = serializers.ChoiceField(choices=SpanStatus.choices, required=False)
    session = serializers.CharField(required=False, max_length=256)
    user = serializers.CharField(required=False, max_length=256)
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)
    min_duration_ms = serializers.FloatField(required=False, min_value=0)
    max_duration_ms = serializers.FloatField(required=False, min_value=0)
    min_tokens = serializers.IntegerField(required=False, min_value=0)
    min_cost = serializers.FloatField(required=False, min_value=0)
    has_error = serializers.BooleanField(required=False, allow_null=True, default=None)
    attribute = serializers.CharField(
        required=False, max_length=600, help_text="`key=value` on the span's raw attributes."
    )

    def validate_trace_id(self, value: str) -> str:
        return value.lower()

    def validate_attribute(self, value: str) -> tuple[str, str]:
        key, equals, wanted = value.partition("=")
        if not equals or not key.strip():
            raise serializers.ValidationError("Give key=value.")
        return key.strip(), wanted
