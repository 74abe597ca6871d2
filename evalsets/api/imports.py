"""API: /api/v1/evalsets/{evalset_id}/imports/: file imports into a set's draft."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import IgnoreFormatNegotiation, validated

from .. import selectors
from ..export import errors_csv
from ..importing import import_create
from . import serializers as s
from .nested import EvalSetChild


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
class ImportViewSet(EvalSetChild):
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
