"""API: /api/v1/pairwise-runs/ — create (and launch), list, get, cancel, retry, the judged
pairs with filters, the statistics with the leaderboard, exports."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, export_action, export_format, validated
from assay.safety.csvcells import excel_wanted

from ..api.runs import RunActionsMixin
from ..models import PairwiseRun
from . import selectors, services
from . import serializers as s
from .exports import FORMATS, pairwise_export_response
from .selectors import RESULT_FILTERS
from .work import PAIRWISE


@extend_schema_view(
    list=extend_schema(
        summary=_("List pairwise runs"),
        description=_(
            "The workspace's pairwise runs, newest first, with their experiments, judge and "
            "progress. Filter with `status` (queued, running, completed, failed or "
            "cancelled); 400 for an unknown status."
        ),
    ),
    create=extend_schema(
        summary=_("Create a pairwise run"),
        description=_(
            "Judges two to eight finished experiments of one evalset (any versions of it: rows "
            "pair by item id) with a pairwise judge, every pair of experiments on every item "
            "they share, each pair in both orders; the first experiment is the baseline, A. "
            "Launched at once (202). Nothing is created unless all of it is valid: 400 names "
            "each problem by place (`experiments[1]`, `evaluator_version`, `mapping`)."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get a pairwise run"),
        description=_(
            "One pairwise run with its experiments in order, progress, and the statistics "
            "stored when it finished: per pair of experiments B's win rate over A (ties split "
            "and ties excluded, each with its interval and sign test), the judge's position "
            "bias, and with three or more experiments the Bradley–Terry leaderboard."
        ),
    ),
    cancel=extend_schema(
        responses={202: s.PairwiseRunSerializer},
        summary=_("Cancel a pairwise run"),
        description=_(
            "Stops a queued or running pairwise run (202): running chunks drop their calls in "
            "flight and the run ends cancelled with the statistics of the pairs judged so "
            "far. 400 for a run that already finished."
        ),
    ),
    retry_failed=extend_schema(
        responses={202: s.PairwiseRetriedSerializer},
        summary=_("Retry failed pairs"),
        description=_(
            "Judges again the pairs that errored or timed out (and any never written), into "
            "the same run (202); `retried` says how many. 400 while the run goes on, or when "
            "there is nothing to retry."
        ),
    ),
    results=extend_schema(
        summary=_("List a pairwise run's pairs"),
        description=_(
            "One row per item, pair of experiments and repetition, in row order, paginated: "
            "the outcome, whether the two orders disagreed, both answers and reasons. "
            "Filters: `outcome` (A, B, tie or unknown), `inconsistent` (true or false), "
            "`pair` (<A's id>:<B's id>), `status` and `q` (text in a reason or error). 400 "
            "names a filter that cannot match."
        ),
    ),
    result=extend_schema(
        summary=_("Get a judged pair"),
        description=_(
            "One pair by its `id` in this run, with the judge's turn, both rendered requests "
            "and both raw answers. 404 when the id is not this run's."
        ),
    ),
    summary=extend_schema(
        summary=_("Get a pairwise run's statistics"),
        description=_(
            "The statistics stored when the run last finished (the same as in Get a pairwise "
            "run): per pair of experiments, B's win rate over A with ties split and excluded, "
            "intervals, sign test p-values and position bias; the judge's position bias over "
            "every pair; with three or more experiments the leaderboard with strengths, "
            "intervals and P(best). Empty until the run finishes."
        ),
    ),
    export=extend_schema(
        summary=_("Export a pairwise run's pairs"),
        description=_(
            "Downloads every judged pair, streamed: `format=csv` (default; cells a spreadsheet "
            "would run as formulas are quoted) or `jsonl`. 400 for another format."
        ),
    ),
)
class PairwiseRunViewSet(
    RunActionsMixin, WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin
):
    """Pairwise runs: created and launched in one call, run by workers, read while running."""

    serializer_class = s.PairwiseRunSerializer
    queryset = PairwiseRun.objects.all()
    run_kind = PAIRWISE
    run_serializer = s.PairwiseRunSerializer

    def scoped_queryset(self):
        status_filter = self.request.query_params.get("status", "") if self.action == "list" else ""
        return selectors.pairwise_run_list(workspace=self.request.workspace, status=status_filter)

    def get_serializer_class(self):
        if self.action == "list":
            return s.PairwiseRunListSerializer
        return s.PairwiseRunSerializer

    @extend_schema(parameters=[OpenApiParameter("status", str, required=False)])
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=s.PairwiseRunCreateSerializer, responses={202: s.PairwiseRunSerializer})
    def create(self, request):
        """Check the body, create the run and launch it."""
        body = dict(validated(s.PairwiseRunCreateSerializer, request))
        found = selectors.pairwise_inputs(
            workspace=request.workspace,
            experiments=body.pop("experiments"),
            evaluator_version=body.pop("evaluator_version"),
        )
        run = services.pairwise_run_create(
            workspace=request.workspace, user=request.user, **found, **body
        )
        return Response(s.PairwiseRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    def retried_body(self, run, count: int) -> dict:
        """What retry-failed/ answers: how many pairs are judged again, and the run."""
        return {"retried": count, "run": s.PairwiseRunSerializer(run).data}

    @extend_schema(
        parameters=[OpenApiParameter(n, str, required=False) for n in RESULT_FILTERS],
        responses=s.PairwiseResultSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def results(self, request, id=None):
        """The judged pairs, paginated, with the row list's filters."""
        params = request.query_params
        rows = selectors.pairwise_results_list(
            run=self.get_object(), **{n: params.get(n, "") for n in RESULT_FILTERS}
        )
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(s.PairwiseResultSerializer(page, many=True).data)

    @extend_schema(responses=s.PairwiseResultDetailSerializer)
    @action(detail=True, methods=["get"], url_path="results/<int:result_id>")
    def result(self, request, id=None, result_id=None):
        """One pair with its turn, both requests and both raw answers."""
        found = selectors.pairwise_result_get(run=self.get_object(), result_id=result_id)
        return Response(s.PairwiseResultDetailSerializer(found).data)

    @extend_schema(responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["get"])
    def summary(self, request, id=None):
        """The stored statistics, leaderboard included."""
        run = self.get_object()
        return Response({"summary": run.summary, "summary_at": run.summary_at})

    @export_action(FORMATS)
    def export(self, request, id=None):
        """Streamed pairs.csv / pairs.jsonl."""
        run = self.get_object()
        fmt = export_format(request, FORMATS)
        return pairwise_export_response(run, fmt, excel=excel_wanted(request.query_params))
