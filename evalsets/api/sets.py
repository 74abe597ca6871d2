"""API: /api/v1/evalsets/: the sets, their exports and media uploads."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, renderers, status
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from assay.api.base import IgnoreFormatNegotiation, WorkspaceScopedViewSet, validated
from assay.api.schema import EXCEL_PARAMETER
from assay.safety.csvcells import excel_wanted

from .. import selectors, services
from ..export import export_response
from ..importing import evalset_version_from_rows
from ..items.media import media_store, with_urls
from ..models import EvalSet
from . import serializers as s
from .nested import version_param


@extend_schema_view(
    list=extend_schema(
        summary=_("List evaluation sets"),
        description=_(
            "The workspace's evaluation sets, most recently changed first, with their columns, "
            "the draft's row count and the latest version. Filters: `q` (text in the name or "
            "description) and `tag`. Deleted sets are not listed."
        ),
    ),
    create=extend_schema(
        summary=_("Create an evaluation set"),
        description=_(
            "Creates a set from a `name`, an optional description and tags, and `columns` "
            "([{name, content_type: Text, Image, Audio or MultiPart, description, required}]). "
            "Its rows start as an empty draft: add them under items or import a file, then "
            "commit a version for experiments (201). 400 names the field: a name already "
            "taken, or a column with a bad name or type."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an evaluation set"),
        description=_(
            "One set with its columns, draft row count, whether the draft changed since the "
            "latest version, and that version. 404 for a deleted set."
        ),
    ),
    partial_update=extend_schema(
        summary=_("Edit an evaluation set"),
        description=_(
            "Changes the name, description, tags or `columns`: the full new list, where "
            "`old_name` on a column renames it (the draft's rows follow). 400 names the "
            "problem when a change does not fit the draft's rows: a new required column, a "
            "type change of a column that holds values, or making a column with empty cells "
            "required. Committed versions never change."
        ),
    ),
    destroy=extend_schema(
        summary=_("Delete an evaluation set"),
        description=_(
            "Soft delete (204): the set leaves the list; experiments keep the versions they ran on."
        ),
    ),
    export=extend_schema(
        summary=_("Export an evaluation set"),
        description=_(
            "Downloads the draft (default) or `version` as `format=jsonl` (default) or `csv`, "
            "streamed, one row per item with its item_id. A file exported this way imports "
            "back as new rows. 400 for another format; 404 for a version the set does not have."
        ),
    ),
    from_rows=extend_schema(
        summary=_("Get or commit a version from a rows file"),
        description=_(
            "Uploads a CSV or JSONL `file` of rows (multipart) for the set `name` (default: the "
            "file's name without its extension). The rows are hashed (keys sorted, empty cells "
            "and item_id left out): a version of that set made from the same rows is returned "
            "as it is (200, `created` false). Otherwise the set is created when no live set "
            "has the name, the rows replace its draft (fields without a column become new "
            "columns) and are committed as the next patch version, 1.0.0 first (201, `created` "
            "true). Editors only. 400 names the problem and saves nothing: a file that is not "
            "CSV or JSONL, unreadable lines, no rows or no fields, more rows or bytes than a "
            "rows file may hold, or a draft with uncommitted changes."
        ),
    ),
    media=extend_schema(
        summary=_("Upload a media file"),
        description=_(
            "Uploads an image or audio file (multipart `file`; `content_type` Image or Audio "
            "to refuse the other kind) and returns its content object, to put in a row's data "
            "(201). The type is read from the file's bytes, not its name. 400 when the file "
            "is over the size limit, is not a known image or audio format, or is not the kind "
            "asked for."
        ),
    ),
)
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
            EXCEL_PARAMETER,
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
            raise ValidationError({"format": gettext("Use format=csv or format=jsonl.")})
        version = version_param(evalset, request.query_params)
        return export_response(
            evalset=evalset,
            version=version,
            file_format=file_format,
            excel=excel_wanted(request.query_params),
        )

    @extend_schema(
        request={"multipart/form-data": s.RowsUploadSerializer},
        responses={200: s.RowsVersionSerializer, 201: s.RowsVersionSerializer},
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="from-rows",
        parser_classes=[MultiPartParser, FormParser],
    )
    def from_rows(self, request):
        if request.workspace is None:
            raise Http404
        body = validated(s.RowsUploadSerializer, request)
        version, created = evalset_version_from_rows(
            workspace=request.workspace,
            user=request.user,
            upload=body["file"],
            name=body.get("name", ""),
            file_format=body.get("format"),
        )
        data = s.RowsVersionSerializer(version, context={"created": created}).data
        return Response(data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(
        request={"multipart/form-data": s.MediaUploadSerializer},
        responses={201: OpenApiTypes.OBJECT},
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
