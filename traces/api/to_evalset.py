"""The API of trace → evalset: `POST /api/v1/traces/to-evalset/` (the service is
`traces.services.to_evalset`)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema
from rest_framework import exceptions, serializers, status, viewsets
from rest_framework.response import Response

from assay.api.base import WorkspaceMixin, validated
from assay.api.serializers import StrictSerializer
from evalsets.models import EvalSet
from evalsets.selectors import evalset_get

from ..services.to_evalset import (
    SPAN_FIELDS,
    RowFrom,
    Selection,
    default_mapping,
    traces_to_evalset,
)
from ..services.to_evalset_rows import MAX_IDS
from .serializers import TraceFilterSerializer


def _ids(help_text: str):
    return serializers.ListField(
        child=serializers.CharField(max_length=256),
        required=False,
        max_length=MAX_IDS,
        help_text=help_text,
    )


class ToEvalsetSerializer(StrictSerializer):
    evalset = serializers.UUIDField(help_text="The evaluation set whose draft takes the rows.")
    trace_ids = _ids("Traces (32 hex digits): one row per trace's root, or per LLM span.")
    span_ids = _ids("Spans (16 hex digits): one row each.")
    session_ids = _ids("Sessions: one Conversation row each (its traces' turns in order).")
    filters = serializers.DictField(
        required=False,
        help_text="The trace list's filters (as `GET /api/v1/traces/` takes them), when no ids "
        "are given: the traces it lists, at most 500.",
    )
    mapping = serializers.DictField(
        child=serializers.ChoiceField(choices=list(SPAN_FIELDS)),
        required=False,
        help_text="{column: span field}; default: by the columns' names and types.",
    )
    row_from = serializers.ChoiceField(
        choices=RowFrom.CHOICES,
        default=RowFrom.ROOT,
        help_text="root: a row per trace (its root span); llm: a row per LLM span.",
    )

    def validate_filters(self, value: dict) -> dict:
        """The trace list's query (`GET /api/v1/traces/`), its paging and order left out."""
        query = TraceFilterSerializer(data=value)
        query.is_valid(raise_exception=True)
        paging = {"cursor", "limit", "sort"}
        return {k: v for k, v in query.validated_data.items() if v is not None and k not in paging}

    def validate(self, attrs):
        given = [k for k in ("trace_ids", "span_ids", "session_ids", "filters") if attrs.get(k)]
        if len(given) != 1:
            raise serializers.ValidationError(
                {"selection": _("Give one of trace_ids, span_ids, session_ids or filters.")}
            )
        return attrs


class ToEvalsetResultSerializer(serializers.Serializer):
    added = serializers.IntegerField()
    skipped_duplicates = serializers.IntegerField(
        help_text="Rows whose content the draft already had (or that came twice)."
    )
    empty = serializers.IntegerField(help_text="Spans with none of the mapped fields filled.")
    rows = serializers.ListField(child=serializers.UUIDField(), help_text="The new rows' ids.")
    mapping = serializers.DictField(child=serializers.CharField())


class TraceToEvalsetViewSet(WorkspaceMixin, viewsets.GenericViewSet):
    """Production spans as rows of an evaluation set's draft (editors)."""

    queryset = EvalSet.objects.none()  # the set is looked up in the request's workspace

    @extend_schema(
        summary=_("Add traces to an evaluation set"),
        description=_(
            "Turns the selected traces (by trace, span or session id, or by the trace list's "
            "filters) into rows of the set's draft: `mapping` says which span field (input, "
            "output, messages, trajectory, …) fills which column. A row whose content the "
            "draft already has is skipped and counted; every row keeps a link to its span "
            "(`source`). At most 500 traces or sessions a call. 400 names the column, field "
            "or selection at fault and saves nothing; 404 for a set of another workspace."
        ),
        request=ToEvalsetSerializer,
        responses={201: ToEvalsetResultSerializer},
    )
    def create(self, request):
        if request.workspace is None:
            raise exceptions.NotFound(_("No workspace selected."))
        body = validated(ToEvalsetSerializer, request)
        evalset = evalset_get(workspace=request.workspace, public_id=body["evalset"])
        mapping = body.get("mapping") or default_or_400(evalset)
        report = traces_to_evalset(
            workspace=request.workspace,
            user=request.user,
            evalset=evalset,
            selection=Selection(
                trace_ids=body.get("trace_ids", []),
                span_ids=body.get("span_ids", []),
                session_ids=body.get("session_ids", []),
                filters=body.get("filters"),
            ),
            mapping=mapping,
            row_from=body["row_from"],
        )
        result = {
            "added": len(report.added),
            "skipped_duplicates": report.skipped_duplicates,
            "empty": report.empty,
            "rows": [item.item_id for item in report.added],
            "mapping": mapping,
        }
        return Response(ToEvalsetResultSerializer(result).data, status=status.HTTP_201_CREATED)


def default_or_400(evalset: EvalSet) -> dict:
    mapping = default_mapping(evalset)
    if not mapping:
        raise serializers.ValidationError(
            {"mapping": _("No column of this set matches a span field by name; give a mapping.")}
        )
    return mapping
