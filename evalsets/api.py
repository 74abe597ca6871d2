"""API: /api/v1/evalsets/ with their items, versions, imports, exports and media uploads."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
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
from assay.api.schema import EXCEL_PARAMETER
from assay.safety.csvcells import excel_wanted
from assay.semver import SEMVER_RE

from . import selectors, services
from . import serializers as s
from .export import errors_csv, export_response
from .importing import evalset_version_from_rows, import_create
from .items.media import media_store, with_urls
from .models import EvalSet


def _version(evalset: EvalSet, params):
    """The `version` query parameter: the draft (none, or 'draft'), a version (404 when there
    is none), or a 400 naming the parameter when it is not a version at all (a NUL in it was
    a 500 on PostgreSQL)."""
    ref = params.get("version")
    if ref and ref != "draft" and not SEMVER_RE.match(ref):
        raise ValidationError(
            {"version": gettext("Give a version such as 1.0.0, or draft (the default).")}
        )
    return selectors.version_ref(evalset=evalset, ref=ref)


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
        version = _version(evalset, request.query_params)
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


class _EvalSetChildViewSet(WorkspaceMixin, viewsets.GenericViewSet):
    """Routes under /evalsets/{evalset_id}/: the parent set, inside the request's workspace (404
    otherwise). Reads go through selectors, not a queryset."""

    def evalset(self) -> EvalSet:
        return self.parent(selectors.evalset_get, "evalset_id")

    def get_queryset(self):
        return None


@extend_schema_view(
    list=extend_schema(
        summary=_("List an evaluation set's items"),
        description=_(
            "The rows in order, paginated: the draft by default, or a committed `version`. "
            "Filters: `tag` and `q` (text anywhere in the row). Stored media carry a URL that "
            "members can read them by. 404 for a version the set does not have."
        ),
    ),
    create=extend_schema(
        summary=_("Add or change items"),
        description=_(
            "Two bodies. `{data, tags?, human_verdict?, label?}` adds one row to the draft "
            "(201); `data` is {column: text or content object}. `{create: [...], update: "
            "[{item_id, ...}], delete: [item_id, ...]}` makes up to 5,000 changes in one "
            "all-or-nothing call (200): when any change is invalid nothing is saved, and 400 "
            "names every problem by its path (e.g. `create[2].data.question`)."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an item"),
        description=_(
            "One row of the draft, or of a committed `version`; 404 when it is not there."
        ),
    ),
    partial_update=extend_schema(
        summary=_("Edit an item"),
        description=_(
            "Changes a draft row: `data` (replacing the whole row), tags, human_verdict or "
            "label. Committed versions never change. 400 names the field at fault; 404 when "
            "the row is not in the draft."
        ),
    ),
    destroy=extend_schema(
        summary=_("Delete an item"),
        description=_(
            "Removes a row from the draft (204); versions that hold it keep it. 404 when the "
            "row is not in the draft."
        ),
    ),
)
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
        version = _version(evalset, params)
        rows = selectors.items_list(
            evalset=evalset, version=version, tag=params.get("tag", ""), search=params.get("q", "")
        )
        page = self.paginate_queryset(rows)
        data = s.ItemSerializer(page, many=True, context=self._context()).data
        return self.get_paginated_response(data)

    @extend_schema(
        request=s.ItemsBulkSerializer,
        responses={200: s.ItemsBulkResultSerializer, 201: s.ItemSerializer},
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
        version = _version(evalset, request.query_params)
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
    list=extend_schema(
        summary=_("List an evaluation set's versions"),
        description=_(
            "The committed versions of one set, highest SemVer first, each with its note, "
            "row count and columns. 404 when the set is not in this workspace."
        ),
    ),
    create=extend_schema(
        summary=_("Commit an evaluation set version"),
        description=_(
            "Freezes the draft's columns and rows as `version` (SemVer, greater than the "
            "latest) with an optional `note` (201); experiments run on versions, and rows are "
            "numbered from 1 in draft order. A draft of more than ASSAY_COMMIT_INLINE_ROWS "
            "rows (20,000 by default) is copied in the background: 202 with the version "
            "`committing`, `rows_copied` of `item_count`, and `poll_url` (Get an evaluation "
            "set version) until `status` is `ready`; meanwhile the draft cannot be changed "
            "and experiments cannot pin the version. 400 names the field: a version that "
            "exists, is not greater than the latest or is not SemVer, a deleted set, or a "
            "draft with a commit or an import under way."
        ),
        request=s.VersionCommitSerializer,
        responses={201: s.VersionSerializer, 202: s.VersionSerializer},
    ),
    retrieve=extend_schema(
        summary=_("Get an evaluation set version"),
        description=_(
            "One version by its SemVer string (e.g. 1.0.0); 404 for a version the set does "
            "not have. List its rows with List an evaluation set's items and `version`."
        ),
    ),
)
class VersionViewSet(LibraryVersionViewSet):
    """Committed versions of a set: the draft frozen under a SemVer string."""

    serializer_class = s.VersionSerializer
    create_serializer_class = s.VersionCommitSerializer

    def item(self) -> EvalSet:
        return self.parent(selectors.evalset_get, "evalset_id")

    def version_create(self, *, item, user, body):
        return services.version_commit(evalset=item, user=user, **body)

    def create(self, request, **kwargs):
        """201 with the version when its rows are copied; 202 while a background commit copies
        them, with the URL to poll (the version, whose `status` turns `ready`)."""
        item = self.item()
        body = validated(self.create_serializer_class, request)
        created = self.version_create(item=item, user=request.user, body=body)
        data = self.get_serializer(created).data
        if created.is_ready:
            return Response(data, status=status.HTTP_201_CREATED)
        poll = reverse(
            "evalset-version-detail",
            kwargs={"evalset_id": item.public_id, "version": created.version},
        )
        return Response({**data, "poll_url": request.build_absolute_uri(poll)}, status=202)


@extend_schema_view(
    list=extend_schema(
        summary=_("List an evaluation set's imports"),
        description=_(
            "The set's file imports, newest first (at most 200), with status, progress and "
            "row counts."
        ),
    ),
    create=extend_schema(
        summary=_("Import a file into an evaluation set"),
        description=_(
            "Uploads a CSV or JSONL `file` (multipart) and queues its import into the draft "
            "(202); poll Get an import. `format` comes from the file name unless given; "
            "`encoding` is utf-8 (default), utf-8-sig, gb18030 or latin-1. `mapping` is "
            '{file field: column, "@tags", "@human_verdict", "@label", or "" to '
            "ignore it}; without one, fields fill columns of the same name or a usual synonym "
            "(question or 问题 → input, answer or 参考答案 → reference_output, tag or 标签 → "
            "@tags), and a set without columns gets a column per field (a header that is not a "
            "valid name gets a readable one: 问题 → input, 用户满意度 → yong_hu_man_yi_du); "
            "`add_columns` gives a set with columns a new column, named the same way, for "
            "every field that matches none (as `assay evalset push` does). "
            "Every field must be mapped or ignored, and at least one must fill a column (an "
            "existing one, if the set has columns): an import that would store nothing is a "
            "400. `new_columns` [{name, content_type, description}] adds columns; "
            "`skip_bad_rows` imports the "
            "good rows when some are bad (otherwise nothing is imported); `replace` replaces "
            "the draft's rows. 400 names the field: an unknown format, an empty or oversized "
            "file, a file that is not in the chosen encoding (with a guess of the right one), "
            "or the mapping's problems."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an import"),
        description=_(
            "One import's status (queued, running, completed or failed), progress (rows done, "
            "imported and failed, percent), a message, and its first 100 problems by line and "
            "column."
        ),
    ),
    errors=extend_schema(
        summary=_("Download an import's error report"),
        description=_(
            "The import's problems as CSV (line, column, problem), up to the first 1,000. 404 "
            "when the import is not this set's."
        ),
    ),
)
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
            add_columns=data["add_columns"],
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
