"""Compare pages and API: choose a baseline and candidates, read metrics and the row diff."""

from __future__ import annotations

import json

from django.core.exceptions import ValidationError
from django.db.models import F
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from rest_framework.views import APIView

from assay.api.base import WorkspaceMixin
from assay.safety.csvcells import EXCEL_BOM, excel_wanted
from assay.web.decorators import workspace_view

from ..models import Experiment, ExperimentStatus
from ..results.compare import (
    FILTERS,
    comparison_context,
    comparison_csv,
    comparison_json,
    paged_rows,
)
from ..scoring.turns import result_turns
from ..serializers import CompareSerializer

PAGE_SIZE = 25
# The row filter's choices as the page shows them (the codes stay in the URL and the API).
FILTER_LABELS = {
    "all": _("all rows"),
    "regressions": _("regressions only"),
    "improvements": _("improvements only"),
    "unknown": _("rows to or from unknown"),
    "changed": _("rows with any change"),
}


def _params(params) -> dict:
    raw = params.getlist("candidates")
    candidates = [c for value in raw for c in value.split(",") if c]
    return {
        "baseline": params.get("baseline", ""),
        "candidates": candidates,
        "evaluator": params.get("evaluator", ""),
        "candidate": params.get("candidate", ""),
        "filter": params.get("filter", "all") if params.get("filter") in FILTERS else "all",
        "tag": params.get("tag", ""),
        "page": params.get("page", "1"),
    }


@workspace_view()
def compare(request):
    """The page: a picker without parameters; metrics, charts and the row diff with them."""
    params = _params(request.GET)
    finished = _picker_rows(request.workspace, params)
    context = {
        "experiments": finished,
        "candidate_choices": _candidate_choices(finished, params["baseline"]),
        "params": params,
        "filters": [(code, FILTER_LABELS[code]) for code in FILTERS],
    }
    if params["baseline"] and params["candidates"]:
        try:
            context.update(comparison_context(workspace=request.workspace, params=params))
        except ValidationError as exc:
            context["errors"] = exc.messages
            return render(request, "experiments/compare.html", context, status=400)
        context["page"], context["rows"] = paged_rows(
            context=context, size=PAGE_SIZE, number=params["page"]
        )
    return render(request, "experiments/compare.html", context)


# what the picker shows of each run, as plain values: a workspace may have a thousand runs
PICKER_FIELDS = {
    "evalset": "evalset_version__evalset__name",
    "evalset_id": "evalset_version__evalset_id",
    "version": "evalset_version__version",
    "version_id": "evalset_version_id",
}


def _picker_rows(workspace, params: dict) -> list[dict]:
    """The workspace's completed runs, newest first, read once for both of the picker's
    lists, each marked when the query string chose it."""
    finished = Experiment.objects.filter(workspace=workspace, status=ExperimentStatus.COMPLETED)
    fields = {name: F(path) for name, path in PICKER_FIELDS.items()}
    rows = list(finished.values("public_id", "name", **fields))
    chosen = set(params["candidates"])
    for row in rows:
        row["id"] = str(row["public_id"])
        row["selected"] = row["id"] == params["baseline"]
        row["checked"] = row["id"] in chosen
    return rows


def _candidate_choices(finished: list[dict], baseline_id) -> list[dict]:
    """Runs that can pair with the baseline: on its evalset (each marked when on another
    version of it); every completed run while no baseline is chosen."""
    from assay.selectors import as_uuid

    wanted = as_uuid(baseline_id) if baseline_id else None
    baseline = next((e for e in finished if wanted and e["public_id"] == wanted), None)
    if baseline is None:
        return [{"experiment": e, "other_version": False} for e in finished]
    return [
        {"experiment": e, "other_version": e["version_id"] != baseline["version_id"]}
        for e in finished
        if e["evalset_id"] == baseline["evalset_id"] and e is not baseline
    ]


@workspace_view()
def compare_export(request):
    """The comparison as CSV (one row per candidate × evaluator) or JSON (everything)."""
    params = _params(request.GET)
    try:
        context = comparison_context(workspace=request.workspace, params=params, with_ids=True)
    except ValidationError as exc:
        return HttpResponse("; ".join(exc.messages), status=400, content_type="text/plain")
    body = comparison_json(context)
    if request.GET.get("format") == "json":
        response = HttpResponse(json.dumps(body, indent=2), content_type="application/json")
        name = "comparison.json"
    else:
        text = comparison_csv(body)
        excel = excel_wanted(request.GET)  # a byte order mark: Excel then reads UTF-8
        response = HttpResponse(EXCEL_BOM + text if excel else text, content_type="text/csv")
        name = "comparison-excel.csv" if excel else "comparison.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


class CompareApi(WorkspaceMixin, APIView):
    """GET /api/v1/compare?baseline=<id>&candidates=<id>,<id>[&candidate=&evaluator=&filter=
    &tag=&page=&page_size=]: the metrics of the page and one page of the row diff."""

    @extend_schema(
        summary=_("Compare runs with a baseline"),
        description=_(
            "Pairs each candidate experiment with the baseline item by item and returns, per "
            "evaluator, the pass rates, their difference with its interval, McNemar's p-value "
            "and the rows that regressed or improved, plus one page of the row diff of one "
            "candidate and one evaluator (by default the first candidate and the evaluator "
            "with the most regressions). Every run must be in this workspace and on the same "
            "evalset as the baseline (other versions of it pair by item id). 400 names the "
            "parameter when the baseline or candidates are missing, a candidate is the "
            "baseline or runs on another evalset, or `page_size` is not a whole number; 404 "
            "when an id is not an experiment of this workspace."
        ),
        parameters=[
            OpenApiParameter("baseline", str, required=True, description=_("Experiment id.")),
            OpenApiParameter(
                "candidates",
                str,
                required=True,
                description=_("Experiment ids, comma-separated or the parameter repeated."),
            ),
            OpenApiParameter(
                "candidate", str, description=_("Which candidate the row diff shows.")
            ),
            OpenApiParameter(
                "evaluator", str, description=_("`evaluator_id` whose rows the diff shows.")
            ),
            OpenApiParameter("filter", str, enum=list(FILTERS), description=_("Default all.")),
            OpenApiParameter("tag", str, description=_("Only rows with this item tag.")),
            OpenApiParameter("page", int),
            OpenApiParameter("page_size", int, description=_("1 to 500, default 25.")),
        ],
        responses=CompareSerializer,
    )
    def get(self, request):
        params = _params(request.query_params)
        if request.workspace is None:
            raise Http404
        if not params["baseline"] or not params["candidates"]:
            raise ValidationError(
                {"baseline": gettext("Give a baseline and at least one candidate.")}
            )
        context = comparison_context(workspace=request.workspace, params=params, with_ids=True)
        body = comparison_json(context)
        size = _page_size(request.query_params.get("page_size"))
        page, rows = paged_rows(context=context, size=size, number=params["page"])
        body["diff"] = {
            "candidate": str(context["focus_candidate"].experiment.public_id),
            "evaluator_id": context["focus"].evaluator_id if context["focus"] else None,
            "filter": params["filter"],
            "count": context["diff_count"],
            "page": page.number,
            "results": _api_rows(rows),
        }
        return Response(body)


def _page_size(raw) -> int:
    try:
        return min(max(int(raw or PAGE_SIZE), 1), 500)
    except ValueError:
        raise ValidationError(
            {"page_size": gettext("Give a whole number from 1 to 500.")}
        ) from None


def _api_rows(rows: list[dict]) -> list[dict]:
    sides = [row[side] for row in rows for side in ("baseline", "candidate") if row[side]]
    turns = result_turns(results=sides)
    return [_api_row(row, turns) for row in rows]


def _api_row(row: dict, turns: dict[int, dict]) -> dict:
    def side(result):
        if result is None:
            return None
        return {
            "verdict": result.final_verdict,
            "score": result.score,
            "status": result.status,
            "reason": result.reason,
            "input": turns[result.pk],
        }

    return {
        "item_id": row["item"],
        "kind": row["kind"],
        "baseline": side(row["baseline"]),
        "candidate": side(row["candidate"]),
    }
