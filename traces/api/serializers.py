"""API shapes of traces: ingest keys (the key itself only in the answer to its creation),
spans, traces and the lists' filters."""

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from assay.api.serializers import StrictSerializer

from ..models import IngestKey, Span, SpanKind, SpanStatus, TraceSummary
from ..reading.filters import filters_checked
from ..reading.scores import SCORE_FILTERS
from ..selectors import TIME_RANGES, TRACE_SORTS


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


class OutcomeSerializer(serializers.Serializer):
    """What one online rule's evaluator version made of a span (or of a whole trace)."""

    rule_id = serializers.UUIDField()
    rule_name = serializers.CharField()
    evaluator_version = serializers.UUIDField(help_text="The evaluator version's id.")
    evaluator_name = serializers.CharField()
    version = serializers.CharField(help_text="The evaluator version's number, as `1.0.0`.")
    status = serializers.CharField(help_text="success, error, timeout or skipped.")
    verdict = serializers.CharField(help_text="pass, fail or unknown.")
    score = serializers.FloatField(allow_null=True)
    skip_reason = serializers.CharField(
        help_text="Why there is no verdict (`mapping`, `evaluator_error`, `provider_blocked`, "
        "`over_budget`, `not_ready`); empty when scored."
    )


class SpanSerializer(serializers.ModelSerializer):
    """A stored span: typed columns, its capped raw attributes, and what online rules made of
    it."""

    online_outcomes = serializers.SerializerMethodField(
        help_text="Each online rule's outcome for this span, one per evaluator version."
    )

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
            "online_outcomes",
        ]
        read_only_fields = fields

    @extend_schema_field(OutcomeSerializer(many=True))
    def get_online_outcomes(self, span) -> list:
        # set by traces.reading.scores.spans_outcomes_attach, one query for the whole page
        return OutcomeSerializer(getattr(span, "online_outcomes", []), many=True).data


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
    online_outcomes = OutcomeSerializer(
        many=True, help_text="Outcomes of trace and session rules: items that were the trace."
    )


class TraceSummarySerializer(serializers.ModelSerializer):
    """One trace's figures, kept as its spans are stored (sums over all its spans)."""

    spans = serializers.IntegerField(source="span_count")
    errors = serializers.IntegerField(source="error_count")
    models = serializers.SerializerMethodField()
    kinds = serializers.SerializerMethodField()

    class Meta:
        model = TraceSummary
        fields = [
            "trace_id",
            "root_name",
            "has_root",
            "service",
            "environment",
            "session_id",
            "user_id",
            "start_time",
            "end_time",
            "duration_ms",
            "spans",
            "errors",
            "tokens_in",
            "tokens_out",
            "tokens_total",
            "cost",
            "models",
            "kinds",
        ]
        read_only_fields = fields

    def get_models(self, trace) -> list[str]:
        return [m for m in trace.models_seen.split("|") if m]

    def get_kinds(self, trace) -> list[str]:
        return [k for k in trace.kinds_seen.split("|") if k]


class TracePageSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    results = TraceSummarySerializer(many=True)


class SpanPageSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    results = SpanSerializer(many=True)


class SessionSerializer(serializers.Serializer):
    session_id = serializers.CharField()
    user_id = serializers.CharField()
    traces = serializers.IntegerField()
    first_start = serializers.DateTimeField()
    last_start = serializers.DateTimeField()
    spans = serializers.IntegerField()
    errors = serializers.IntegerField()
    tokens = serializers.IntegerField()
    cost = serializers.FloatField()


class SessionPageSerializer(serializers.Serializer):
    next = serializers.URLField(allow_null=True, help_text="The next page; null on the last.")
    results = SessionSerializer(many=True)


class SessionTurnSerializer(serializers.Serializer):
    trace = TraceSummarySerializer()
    input = serializers.CharField(help_text="The user's input (the root span's, else the first).")
    output = serializers.CharField(help_text="The answer (the root span's, else the last).")


class SessionDetailSerializer(serializers.Serializer):
    session_id = serializers.CharField()
    turns = SessionTurnSerializer(many=True, help_text="Its traces in start order.")


class PagingSerializer(serializers.Serializer):
    cursor = serializers.CharField(
        required=False, max_length=400, help_text="The `next` link's cursor, to page on."
    )
    limit = serializers.IntegerField(required=False, min_value=1, max_value=500, default=50)


class SpanFilterSerializer(PagingSerializer):
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
    range = serializers.ChoiceField(
        choices=list(TIME_RANGES),
        required=False,
        help_text="The last hour, day, week or month: sets `since` (give one or the other).",
    )
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)
    min_duration_ms = serializers.FloatField(required=False, min_value=0)
    max_duration_ms = serializers.FloatField(required=False, min_value=0)
    min_tokens = serializers.IntegerField(required=False, min_value=0)
    max_tokens = serializers.IntegerField(required=False, min_value=0)
    min_cost = serializers.FloatField(required=False, min_value=0)
    max_cost = serializers.FloatField(required=False, min_value=0)
    has_error = serializers.BooleanField(required=False, allow_null=True, default=None)
    attribute = serializers.CharField(
        required=False, max_length=600, help_text="`key=value` on the span's raw attributes."
    )

    def validate_trace_id(self, value: str) -> str:
        return value.lower()

    def validate_attribute(self, value: str) -> tuple[str, str]:
        key, equals, wanted = value.partition("=")
        if not equals or not key.strip():
            raise serializers.ValidationError(gettext("Give key=value."))
        return key.strip(), wanted

    def validate(self, attrs: dict) -> dict:
        return filters_checked(attrs, serializers.ValidationError)


class TraceFilterSerializer(SpanFilterSerializer):
    """The query of the trace list: the span list's filters, on each trace's summary (`name`
    is the root span's, `kind` and `model` any span's, `status` error: a trace with an error
    span), its scores, and its order."""

    score = serializers.ChoiceField(
        choices=list(SCORE_FILTERS),
        required=False,
        help_text="`scored`: a trace an online rule scored; `pass`, `fail`, `unknown`: one it "
        "judged so.",
    )
    rule = serializers.UUIDField(
        required=False, help_text="With `score`: the scores of this online rule only."
    )

    sort = serializers.ChoiceField(
        choices=[*TRACE_SORTS, *(f"-{k}" for k in TRACE_SORTS)],
        required=False,
        default="-start",
        help_text="A column, `-` first for descending (default `-start`: newest first).",
    )


class SessionFilterSerializer(PagingSerializer):
    range = serializers.ChoiceField(choices=list(TIME_RANGES), required=False)
    since = serializers.DateTimeField(required=False)
    until = serializers.DateTimeField(required=False)
    user = serializers.CharField(required=False, max_length=256)
    service = serializers.CharField(required=False, max_length=128)
    environment = serializers.CharField(required=False, max_length=64)

    def validate(self, attrs: dict) -> dict:
        return filters_checked(attrs, serializers.ValidationError)
