"""The API of traces: the workspace's ingest keys (Settings)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated
from assay.models import Membership

from . import selectors, services
from . import serializers as s
from .models import IngestKey


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
