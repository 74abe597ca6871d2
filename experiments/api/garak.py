"""API: /api/v1/garak-imports/ — a garak report uploaded, then imported by a worker."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated

from .. import selectors, services
from .. import serializers as s
from ..models import GarakImport
from .schema import GARAK_IMPORT_DOCS


@GARAK_IMPORT_DOCS
class GarakImportViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """garak imports: POST a report (202, a queued job and the URL to poll), then poll it."""

    serializer_class = s.GarakImportJobSerializer
    queryset = GarakImport.objects.all()
    parser_classes = [MultiPartParser, FormParser]

    def scoped_queryset(self):
        return selectors.garak_imports(workspace=self.request.workspace)

    @extend_schema(
        request={"multipart/form-data": s.GarakScanImportSerializer},
        responses={202: s.GarakImportJobSerializer, 200: s.GarakImportJobSerializer},
    )
    def create(self, request):
        body = validated(s.GarakScanImportSerializer, request)
        job, queued = services.garak_import_create(
            workspace=request.workspace,
            user=request.user,
            upload=body["file"],
            threshold=body.get("threshold"),
            partial=body["partial"],
        )
        data = s.GarakImportJobSerializer(job, context={"request": request}).data
        return Response(data, status=status.HTTP_202_ACCEPTED if queued else status.HTTP_200_OK)
