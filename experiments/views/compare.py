"""Compare pages and API: choose a baseline and candidates, read metrics and the row diff."""

from __future__ import annotations

import csv
import io
import json

from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import render
from rest_framework.response import Response
from rest_framework.views import APIView

from assay.api.base import WorkspaceMixin
from assay.safety.csvcells import csv_safe_row
from assay.web.decorators import workspace_view

from ..models import Experiment, ExperimentStatus
from ..results.compare import FILTERS, compare_experiments, diff_page, diff_rows

PAGE_SIZE = 25


def _experiment(workspace, public_id) -> Experiment:
    try:
        found = Experiment.objects.filter(workspace=workspace, public_id=public_id).first()
    except (ValidationError, ValueError):
        found = None
    if found is None:
        raise Http404("No such experiment")
    return found


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


def comparison_context(workspace, params: dict) -> dict:
    """Everything the page, the API and the exports share."""
    baseline = _experiment(workspace, params["baseline"])
    candidates = [_experiment(workspace, c) for c in params["candidates"]]
    results = compare_experiments(workspace=workspace, baseline=baseline, candidates=candidates)
    focus_candidate = next((r for r in results if str(r.experiment.public_id)
                            == params["candidate"]), results[0])  # fmt: skip
    evaluators = focus_candidate.evaluators
    focus = next(
        (e for e in evaluators if str(e.evaluator_id) == params["evaluator"]),
        evaluators[0] if evaluators else None,
    )
    ids = (
        diff_rows(
            baseline=baseline,
            candidate=focus_candidate.experiment,
            comparison=focus,
            flt=params["filter"],
            tag=params["tag"],
        )
        if focus
        else []
    )
    return {
        "baseline": baseline,
        "results": results,
        "focus_candidate": focus_candidate,
        "focus": focus,
        "ids": ids,
        "params": params,
        "chart": _chart(baseline, candidates, results),
    }


def _chart(baseline, candidates, results) -> list[dict]:
    """Pass rate with its CI per experiment, for each evaluator of the baseline."""
    from ..models import Aggregate

    rows = []
    experiments = [baseline, *candidates]
    aggregates = Aggregate.objects.filter(experiment__in=experiments).select_related(
        "binding__evaluator_version__evaluator", "experiment"
    )
    by_evaluator: dict = {}
    for aggregate in aggregates:
        evaluator = aggregate.binding.evaluator_version.evaluator
        ci = aggregate.summary.get("fail_rate_ci")
        by_evaluator.setdefault((evaluator.pk, evaluator.name), []).append(
            {
                "experiment": aggregate.experiment.name,
                "baseline": aggregate.experiment == baseline,
                "rate": aggregate.summary.get("pass_rate"),
                "ci": (1 - ci[1], 1 - ci[0]) if ci else None,
                "order": experiments.index(aggregate.experiment),
            }
        )
    for (_, name), bars in sorted(by_evaluator.items(), key=lambda kv: kv[0][1]):
        rows.append({"evaluator": name, "bars": sorted(bars, key=lambda b: b["order"])})
    return rows


def paged_rows(context: dict, size: int, number) -> tuple:
    """One page of the row diff for the focused candidate and evaluator."""
    page = Paginator(context["ids"], size).get_page(number)
    if context["focus"] is None:
        return page, []
    rows = diff_page(
        baseline=context["baseline"],
        candidate=context["focus_candidate"].experiment,
        comparison=context["focus"],
        ids=list(page.object_list),
    )
    return page, rows


@workspace_view()
def compare(request):
    """The page: a picker without parameters; metrics, charts and the row diff with them."""
    params = _params(request.GET)
    finished = Experiment.objects.filter(
        workspace=request.workspace, status=ExperimentStatus.COMPLETED
    )
    context = {
        "experiments": finished.select_related("evalset_version__evalset"),
        "params": params,
        "filters": FILTERS,
    }
    if params["baseline"] and params["candidates"]:
        try:
            context.update(comparison_context(request.workspace, params))
        except ValidationError as exc:
            context["errors"] = exc.messages
            return render(request, "experiments/compare.html", context, status=400)
        context["page"], context["rows"] = paged_rows(context, PAGE_SIZE, params["page"])
        context["querystring"] = _querystring(request.GET)
    return render(request, "experiments/compare.html", context)


def _querystring(params) -> str:
    kept = params.copy()
    kept.pop("page", None)
    return kept.urlencode()


@workspace_view()
def compare_export(request):
    """The comparison as CSV (one row per candidate × evaluator) or JSON (everything)."""
    params = _params(request.GET)
    try:
        context = comparison_context(request.workspace, params)
    except ValidationError as exc:
        return HttpResponse("; ".join(exc.messages), status=400, content_type="text/plain")
    body = comparison_json(context)
    if request.GET.get("format") == "json":
        response = HttpResponse(json.dumps(body, indent=2), content_type="application/json")
        name = "comparison.json"
    else:
        response = HttpResponse(_csv(body), content_type="text/csv")
        name = "comparison.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


CSV_FIELDS = [
    "candidate",
    "evaluator",
    "baseline_version",
    "candidate_version",
    "n_paired",
    "pass_rate_baseline",
    "pass_rate_candidate",
    "pass_rate_delta",
    "pass_rate_delta_ci_low",
    "pass_rate_delta_ci_high",
    "mcnemar_p",
    "mean_score_delta",
    "regressions",
    "improvements",
    "to_unknown",
    "from_unknown",
    "only_in_baseline",
    "only_in_candidate",
    "plain_words",
]


def _csv(body: dict) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS)
    writer.writeheader()
    for candidate in body["candidates"]:
        for ev in candidate["evaluators"]:
            s, ci = ev["stats"], ev["stats"]["pass_rate_delta_ci"] or (None, None)
            writer.writerow(
                csv_safe_row(
                    {
                        "candidate": candidate["name"],
                        "evaluator": ev["name"],
                        "baseline_version": ev["baseline_version"],
                        "candidate_version": ev["candidate_version"],
                        "n_paired": s["n_paired"],
                        "pass_rate_baseline": s["pass_rate_baseline"],
                        "pass_rate_candidate": s["pass_rate_candidate"],
                        "pass_rate_delta": s["pass_rate_delta"],
                        "pass_rate_delta_ci_low": ci[0],
                        "pass_rate_delta_ci_high": ci[1],
                        "mcnemar_p": s["mcnemar_p"],
                        "mean_score_delta": s["mean_score_delta"],
                        "regressions": len(s["regressions"]),
                        "improvements": len(s["improvements"]),
                        "to_unknown": len(s["to_unknown"]),
                        "from_unknown": len(s["from_unknown"]),
                        "only_in_baseline": len(s["only_in_baseline"]),
                        "only_in_candidate": len(s["only_in_candidate"]),
                        "plain_words": s["plain_words"],
                    }
                )
            )
    return buffer.getvalue()


def comparison_json(context: dict) -> dict:
    baseline = context["baseline"]
    return {
        "baseline": {
            "id": str(baseline.public_id),
            "name": baseline.name,
            "evalset_version": baseline.evalset_version.version,
        },
        "candidates": [
            {
                "id": str(r.experiment.public_id),
                "name": r.experiment.name,
                "evalset_version": r.experiment.evalset_version.version,
                "unmatched": r.unmatched,
                "evaluators": [
                    {
                        "evaluator_id": e.evaluator_id,
                        "name": e.name,
                        "baseline_version": e.baseline_version,
                        "candidate_version": e.candidate_version,
                        "versions_differ": e.versions_differ,
                        "stats": e.stats,
                    }
                    for e in r.evaluators
                ],
            }
            for r in context["results"]
        ],
    }


class CompareApi(WorkspaceMixin, APIView):
    """GET /api/v1/compare?baseline=<id>&candidates=<id>,<id>[&candidate=&evaluator=&filter=
    &tag=&page=&page_size=]: the metrics of the page and one page of the row diff."""

    def get(self, request):
        params = _params(request.query_params)
        if request.workspace is None:
            raise Http404
        if not params["baseline"] or not params["candidates"]:
            raise ValidationError({"baseline": "Give a baseline and at least one candidate."})
        context = comparison_context(request.workspace, params)
        body = comparison_json(context)
        size = _page_size(request.query_params.get("page_size"))
        page, rows = paged_rows(context, size, params["page"])
        body["diff"] = {
            "candidate": str(context["focus_candidate"].experiment.public_id),
            "evaluator_id": context["focus"].evaluator_id if context["focus"] else None,
            "filter": params["filter"],
            "count": len(context["ids"]),
            "page": page.number,
            "results": [_api_row(row) for row in rows],
        }
        return Response(body)


def _page_size(raw) -> int:
    try:
        return min(max(int(raw or PAGE_SIZE), 1), 500)
    except ValueError:
        raise ValidationError({"page_size": "Give a whole number from 1 to 500."}) from None


def _api_row(row: dict) -> dict:
    def side(result):
        if result is None:
            return None
        return {
            "verdict": result.final_verdict,
            "score": result.score,
            "status": result.status,
            "reason": result.reason,
            "input": result.input,
        }

    return {
        "item_id": row["item"],
        "kind": row["kind"],
        "baseline": side(row["baseline"]),
        "candidate": side(row["candidate"]),
    }
