"""API: /api/v1/evalsets/ with their items, versions, imports, exports and media uploads."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, renderers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from assay.api.base import (
    IgnoreFormatNegotiation,
    LibraryVersionViewSet,
    WorkspaceMixin,
    WorkspaceScopedViewSet,
    validated,
)

from . import selectors, services
from . import serializers as s
from .export import errors_csv, export_response
from .importing import import_create
from .items.media import media_store, with_urls
from .models import EvalSet


class EvalSetViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Evaluation sets. Columns are edited with PATCH; rows under /items/."""

    serializer_class = s.EvalSetSerializer
    queryset = EvalSet.objects.all()
    lookup_value_converter = "uuid"

    def scoped_queryset(self):
        if self.action != "list":
            return EvalSet.objects.filter(workspace=self.request.workspace, deleted_at=None)
        params = self.request.query_params
        return selectors.evalset_list(
            workspace=self.request.workspace, search=params.get("q", ""), tag=params.get("tag", "")
        )

    @extend_schema(parameters=[OpenApiParameter(n, str, required=False) for n in ("q", "tag")])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=s.EvalSetCreateSerializer, responses={201: s.EvalSetSerializer})
    def create(self, request):
        body = validated(s.EvalSetCreateSerializer, request)
        evalset = services.evalset_create(workspace=request.workspace, user=request.user, **body)
        return Response(s.EvalSetSerializer(evalset).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.EvalSetUpdateSerializer, responses=s.EvalSetSerializer)
    def partial_update(self, request, id=None):
        evalset = self.get_object()
        body = validated(s.EvalSetUpdateSerializer, request)
        evalset = services.evalset_update(evalset=evalset, **body)
        return Response(s.EvalSetSerializer(evalset).data)

    def destroy(self, request, id=None):
        services.evalset_delete(evalset=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        parameters=[
            OpenApiParameter("format", str, enum=["csv", "jsonl"], description="default jsonl"),
            OpenApiParameter("version", str, description="a version, or 'draft' (default)"),
        ],
        responses={(200, "application/x-ndjson"): OpenApiTypes.BINARY},
    )
    @action(
        detail=True,
        methods=["get"],
        renderer_classes=[renderers.JSONRenderer],
        content_negotiation_class=IgnoreFormatNegotiation,
    )
    def export(self, request, id=None):
        """Download the draft or a version as CSV or JSONL, streamed."""
        evalset = self.get_object()
        file_format = request.query_params.get("format", "jsonl")
        if file_format not in ("csv", "jsonl"):
            raise ValidationError({"format": "Use format=csv or format=jsonl."})
        version = selectors.version_ref(evalset=evalset, ref=request.query_params.get("version"))
        items = selectors.items_list(evalset=evalset, version=version)
        return export_response(
            evalset=evalset, version=version, items=items, file_format=file_format
        )

    @extend_schema(
        request={"multipart/form-data": s.MediaUploadSerializer},
        responses={201: OpenApiTypes.OBJECT},
        description="Upload an image or audio file; returns its content object for item data.",
    )
    @action(detail=False, methods=["post"], parser_classes=[MultiPartParser, FormParser])
    def media(self, request):
        if request.workspace is None:
            raise Http404
        serializer = s.MediaUploadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        content = media_store(
            workspace=request.workspace,
            upload=serializer.validated_data["file"],
            expected=serializer.validated_data.get("content_type"),
        )
        body = with_urls({"file": content}, request.workspace, request.build_absolute_uri)
        return Response(body["file"], status=status.HTTP_201_CREATED)


class _EvalSetChildViewSet(WorkspaceMixin, viewsets.GenericViewSet):
    """Routes under /evalsets/{evalset_id}/: the parent set, inside the request's workspace (404
    otherwise). Reads go through selectors, not a queryset."""

    def evalset(self) -> EvalSet:
        return self.parent(selectors.evalset_get, "evalset_id")

    def get_queryset(self):
        return None


class ItemViewSet(_EvalSetChildViewSet):
    """Rows of a set: the draft by default, or `?version=` for a committed version."""

    serializer_class = s.ItemSerializer
    lookup_field = "item_id"
    lookup_value_converter = "uuid"

    def _context(self) -> dict:
        return {"request": self.request, "workspace": self.request.workspace}

    @extend_schema(
        parameters=[
            OpenApiParameter("version", str, description="a version, or 'draft' (default)"),
            OpenApiParameter("tag", str),
            OpenApiParameter("q", str, description="text search"),
        ],
        responses=s.ItemSerializer(many=True),
    )
    def list(self, request, evalset_id=None):
        evalset = self.evalset()
        params = request.query_params
        version = selectors.version_ref(evalset=evalset, ref=params.get("version"))
        rows = selectors.items_list(
            evalset=evalset, version=version, tag=params.get("tag", ""), search=params.get("q", "")
        )
        page = self.paginate_queryset(rows)
        data = s.ItemSerializer(page, many=True, context=self._context()).data
        return self.get_paginated_response(data)

    @extend_schema(
        request=s.ItemsBulkSerializer,
        responses={200: s.ItemsBulkResultSerializer, 201: s.ItemSerializer},
        description="Bulk: {create: [...], update: [...], delete: [item_id]}, all-or-nothing. "
        "A body with `data` at the top level creates one item (201).",
    )
    def create(self, request, evalset_id=None):
        evalset = self.evalset()
        if "data" in request.data:
            serializer = s.ItemWriteSerializer(data=request.data)
            serializer.is_valid(raise_exception=True)
            item = services.item_create(evalset=evalset, **serializer.validated_data)
            body = s.ItemSerializer(item, context=self._context()).data
            return Response(body, status=status.HTTP_201_CREATED)
        body = validated(s.ItemsBulkSerializer, request)
        result = services.items_bulk(evalset=evalset, **body)
        return Response(s.ItemsBulkResultSerializer(result, context=self._context()).data)

    @extend_schema(parameters=[OpenApiParameter("version", str)])
    def retrieve(self, request, evalset_id=None, item_id=None):
        evalset = self.evalset()
        version = selectors.version_ref(evalset=evalset, ref=request.query_params.get("version"))
        item = selectors.item_get(evalset=evalset, item_id=item_id, version=version)
        return Response(s.ItemSerializer(item, context=self._context()).data)

    @extend_schema(request=s.ItemWriteSerializer, responses=s.ItemSerializer)
    def partial_update(self, request, evalset_id=None, item_id=None):
        evalset = self.evalset()
        selectors.item_get(evalset=evalset, item_id=item_id)
        body = validated(s.ItemWriteSerializer, request)
        fields = {k: v for k, v in body.items() if k != "item_id"}
        item = services.item_update(evalset=evalset, item_id=item_id, **fields)
        return Response(s.ItemSerializer(item, context=self._context()).data)

    def destroy(self, request, evalset_id=None, item_id=None):
        evalset = self.evalset()
        selectors.item_get(evalset=evalset, item_id=item_id)
        services.item_delete(evalset=evalset, item_id=item_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema_view(
    create=extend_schema(request=s.VersionCommitSerializer, responses={201: s.VersionSerializer})
)
class VersionViewSet(LibraryVersionViewSet):
    """Committed versions of a set: the draft frozen under a SemVer string."""

    serializer_class = s.VersionSerializer
    create_serializer_class = s.VersionCommitSerializer

    def item(self) -> EvalSet:
        return self.parent(selectors.evalset_get, "evalset_id")

    def version_create(self, *, item, user, body):
        return services.version_commit(evalset=item, user=user, **body)


class ImportViewSet(_EvalSetChildViewSet):
    """File imports: POST a CSV/JSONL file (202, a queued job), then poll its status."""

    serializer_class = s.ImportSerializer
    lookup_value_converter = "uuid"
    lookup_url_kwarg = "id"

    def list(self, request, evalset_id=None):
        page = self.paginate_queryset(list(self.evalset().imports.all()[:200]))
        return self.get_paginated_response(s.ImportSerializer(page, many=True).data)

    def retrieve(self, request, evalset_id=None, id=None):
        job = selectors.import_get(evalset=self.evalset(), public_id=id)
        return Response(s.ImportSerializer(job).data)

    @extend_schema(
        request={"multipart/form-data": s.ImportCreateSerializer},
        responses={202: s.ImportSerializer},
    )
    def create(self, request, evalset_id=None):
        evalset = self.evalset()
        body = validated(s.ImportCreateSerializer, request)
        data = body
        job = import_create(
            evalset=evalset,
            user=request.user,
            upload=data["file"],
            file_format=data.get("format"),
            encoding=data["encoding"],
            mapping=data.get("mapping"),
            new_columns=data.get("new_columns"),
            skip_bad_rows=data["skip_bad_rows"],
            replace=data["replace"],
        )
        return Response(s.ImportSerializer(job).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR)})
    @action(detail=True, methods=["get"], content_negotiation_class=IgnoreFormatNegotiation)
    def errors(self, request, evalset_id=None, id=None):
        """The error report: line, column, problem (the first 1,000 problems)."""
        job = selectors.import_get(evalset=self.evalset(), public_id=id)
        response = HttpResponse(errors_csv(job.errors), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = (
            f'attachment; filename="import-{job.public_id}-errors.csv"'
        )
        return response
