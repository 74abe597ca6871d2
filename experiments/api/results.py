"""An experiment's results in the API: the results table, the grid, one result, a correction
and the exports (a mixin of `ExperimentViewSet`, under /api/v1/experiments/<id>/)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import export_action, export_format, validated
from assay.safety.csvcells import excel_wanted

from .. import selectors, services
from .. import serializers as s
from ..results.exports import FORMATS
from ..results.grid import grid_item_ids, grid_rows
from ..views.results import export_download

RESULT_FILTERS = ("evaluator", "verdict", "status", "tag", "q", "score_min", "score_max")
GRID_FILTERS = (*RESULT_FILTERS, "sort", "item")
API_HEAVY = ("rendered_request", "raw_answer", "stdout")  # reasons come whole


class ExperimentResultsMixin:
    """results/, items/, results/<id>/, results/<id>/correct and export/ of one experiment."""

    @extend_schema(
        parameters=[OpenApiParameter(n, str, required=False) for n in RESULT_FILTERS],
        responses=s.ResultSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def results(self, request, id=None):
        """Results, paginated, with the results table's filters (see selectors.results_list)."""
        experiment = self.get_object()
        params = request.query_params
        rows = selectors.results_list(
            experiment=experiment, **{n: params.get(n, "") for n in RESULT_FILTERS}
        )
        page = self.paginate_queryset(rows.annotate(item_uid=selectors.ITEM_UID))
        return self.get_paginated_response(s.ResultSerializer(page, many=True).data)

    @extend_schema(
        parameters=[OpenApiParameter(n, str, required=False) for n in GRID_FILTERS],
        responses=s.GridItemSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def items(self, request, id=None):
        """The results grid: one row per item (row order, or `sort`), every evaluator's
        results in it; the results table's filters select rows with a matching result."""
        experiment = self.get_object()
        params = request.query_params
        ids = grid_item_ids(experiment=experiment, **{n: params.get(n, "") for n in GRID_FILTERS})
        page = self.paginate_queryset(ids)
        bindings = list(experiment.bindings.select_related("evaluator_version__evaluator"))
        rows = grid_rows(
            experiment=experiment, bindings=bindings, item_pks=page, heavy=API_HEAVY, usage=True
        )
        return self.get_paginated_response(s.GridItemSerializer(rows, many=True).data)

    @extend_schema(responses=s.ResultDetailSerializer)
    @action(detail=True, methods=["get"], url_path="results/<int:result_id>")
    def result(self, request, id=None, result_id=None):
        """One result (by its integer id inside this experiment) with its exact input."""
        found = selectors.result_get(experiment=self.get_object(), result_id=result_id)
        return Response(s.ResultDetailSerializer(found).data)

    @extend_schema(request=s.CorrectionSerializer, responses=s.ResultDetailSerializer)
    @action(detail=True, methods=["post"], url_path="results/<int:result_id>/correct")
    def correct(self, request, id=None, result_id=None):
        """Override one result's verdict (and optionally score) with a note; "" undoes it."""
        found = selectors.result_get(experiment=self.get_object(), result_id=result_id)
        body = validated(s.CorrectionSerializer, request)
        services.result_correct(result=found, user=request.user, **body)
        return Response(s.ResultDetailSerializer(found).data)

    @export_action(FORMATS)
    def export(self, request, id=None):
        """Streamed results.csv / results.jsonl, or garak-style report.jsonl / hitlog.jsonl."""
        experiment = self.get_object()
        fmt = export_format(request, FORMATS)
        return export_download(experiment, fmt, excel=excel_wanted(request.query_params))
