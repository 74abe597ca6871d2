"""The API of traces: the workspace's ingest keys (Settings), and reading its traces and spans."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import WorkspaceMixin, WorkspaceScopedViewSet, validated
from assay.models import Membership

from . import selectors, services
from . import serializers as s
from .models import IngestKey, Span


@extend_schema_view(
    list=extend_schema(
        summary=_("List ingest keys"),
        description=_(
            "The workspace's ingest keys (revoked ones too), newest first; keys themselves "
            "are never returned. Any member may list them."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an ingest key"),
        description=_("One ingest key's name, prefix and dates; the key itself is never returned."),
    ),
)
class IngestKeyViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Write-only keys for `POST /otlp/v1/traces`: they send spans to this workspace and can do
    nothing else (the rest of the API refuses them). Owners create and revoke them."""

    serializer_class = s.IngestKeySerializer
    queryset = IngestKey.objects.all()
    write_role = Membership.Role.OWNER

    def scoped_queryset(self):
        return selectors.ingest_keys_list(workspace=self.request.workspace)

    @extend_schema(
        summary=_("Create an ingest key"),
        description=_(
            "Issues a key for OpenTelemetry exporters (`OTEL_EXPORTER_OTLP_ENDPOINT=<assay>/otlp`"
            ", header `Authorization: Bearer <key>`). The key is in this answer only. Owners."
        ),
        request=s.IngestKeyCreateSerializer,
        responses={201: s.IssuedIngestKeySerializer},
    )
    def create(self, request):
        body = validated(s.IngestKeyCreateSerializer, request)
        issued = services.ingest_key_issue(
            workspace=request.workspace, user=request.user, name=body["name"]
        )
        issued.ingest_key.key = issued.key
        data = s.IssuedIngestKeySerializer(issued.ingest_key).data
        return Response(data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_("Revoke an ingest key"),
        description=_("From now on the endpoint answers 403 to it. Owners."),
        request=None,
        responses=s.IngestKeySerializer,
    )
    @action(detail=True, methods=["post"])
    def revoke(self, request, id=None):
        ingest_key = services.ingest_key_revoke(ingest_key=self.get_object())
        return Response(s.IngestKeySerializer(ingest_key).data)


def _filters(request) -> dict:
    """The list query as filters; 400 naming a malformed one (unknown names are ignored:
    paging and `workspace` share the query string)."""
    query = s.SpanFilterSerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    return {k: v for k, v in query.validated_data.items() if v is not None}


class _SpanReadViewSet(WorkspaceMixin, viewsets.GenericViewSet):
    queryset = Span.objects.none()  # reads go through the selectors

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        if request.workspace is None:
            raise exceptions.NotFound(_("No workspace selected."))


@extend_schema_view(
    list=extend_schema(
        summary=_("List traces"),
        description=_(
            "One row per trace that has a span matching the filters (the same as the span "
            "list's), newest first: its first start and last end, its span and error counts, "
            "tokens and cost summed over all its spans, and its root span's name and service "
            "(empty until the root arrives)."
        ),
        parameters=[s.SpanFilterSerializer],
        responses=s.TraceSummarySerializer(many=True),
    ),
    retrieve=extend_schema(
        summary=_("Get a trace"),
        description=_(
            "A trace's spans as a tree by parent span id: each node holds its span and its "
            "children. A span whose parent has not arrived is a root with `parent_missing`. "
            "404 when the workspace has no span of that trace id (32 hex digits)."
        ),
        responses=s.TraceSerializer,
    ),
)
class TraceViewSet(_SpanReadViewSet):
    """Traces assembled from their spans when read (spans arrive in any order)."""

    serializer_class = s.TraceSummarySerializer
    lookup_field = lookup_url_kwarg = "trace_id"
    lookup_value_converter = "str"

    def list(self, request):
        rows = selectors.traces_list(workspace=request.workspace, filters=_filters(request))
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(s.TraceSummarySerializer(page, many=True).data)

    def retrieve(self, request, trace_id=None):
        spans = selectors.trace_spans(workspace=request.workspace, trace_id=trace_id)
        tree = {"trace_id": spans[0].trace_id, "spans": selectors.span_tree(spans)}
        return Response(s.TraceSerializer(tree).data)


@extend_schema_view(
    list=extend_schema(
        summary=_("List spans"),
        description=_(
            "The workspace's spans, newest first, filtered by trace id, service, name, kind, "
            "model, environment, status, session, user, start time (`since`, `until`), "
            "duration, tokens, cost, errors (`has_error`) and one raw attribute "
            "(`attribute=key=value`)."
        ),
        parameters=[s.SpanFilterSerializer],
    ),
)
class SpanViewSet(_SpanReadViewSet, mixins.ListModelMixin):
    """Stored spans, flat."""

    serializer_class = s.SpanSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Span.objects.none()
        return selectors.spans_filtered(
            workspace=self.request.workspace, filters=_filters(self.request)
        )
