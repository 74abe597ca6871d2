"""One item of a comparison, baseline and candidate side by side: the page (a drawer when htmx
asks, a page of its own without JavaScript) and the API endpoint."""

from __future__ import annotations

from urllib.parse import urlencode

from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import render
from django.utils.cache import patch_vary_headers
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from assay.api.base import WorkspaceMixin
from assay.web.decorators import workspace_view

from ..results.compare.detail import KIND_LABELS, item_comparison, item_comparison_json


@require_safe
@workspace_view()
def compare_item(request, id, candidate, item):
    """The item's inputs once, then both runs' output (difference marked), verdict, score,
    reason, rendered prompt and raw answer, with links to the item on both experiment pages."""
    drawer = request.headers.get("HX-Request") == "true"
    context = {"in_drawer": drawer, "back_query": _back_query(request, id, candidate)}
    try:
        context["detail"] = item_comparison(
            workspace=request.workspace,
            baseline_id=id,
            candidate_id=candidate,
            item_id=item,
            evaluator=request.GET.get("evaluator", ""),
        )
    except ValidationError as exc:
        context["errors"] = exc.messages
    template = "experiments/_compare_detail.html" if drawer else "experiments/compare_detail.html"
    response = render(request, template, context, status=400 if "errors" in context else 200)
    patch_vary_headers(response, ["HX-Request"])  # one URL, two bodies: caches keep them apart
    return response


def _back_query(request, baseline, candidate) -> str:
    """The comparison the item was opened from (its query string), else the pair alone."""
    if request.GET.get("baseline"):
        return request.GET.urlencode()
    return urlencode({"baseline": baseline, "candidates": candidate})


UUID = OpenApiTypes.UUID
ITEM_BODY = inline_serializer(
    "CompareItem",
    fields={
        "item_id": serializers.UUIDField(),
        "row_number": serializers.IntegerField(
            allow_null=True, help_text="The item's position in its evalset version, plus one."
        ),
        "kind": serializers.ChoiceField(choices=list(KIND_LABELS)),
        "evaluator": serializers.DictField(help_text="id, public_id and name."),
        "inputs": serializers.DictField(help_text="The turn's dataset fields, {name: content}."),
        "inputs_changed": serializers.DictField(
            help_text="The candidate's dataset fields that differ from the baseline's."
        ),
        "output_diff": serializers.ListField(
            child=serializers.DictField(),
            help_text="Word runs {op: equal | delete | insert, text} from the baseline's output "
            "to the candidate's.",
        ),
        "baseline": serializers.DictField(
            help_text="experiment {id, name} and result (null when the run did not score the "
            "item): id, row_number, repetitions, item_verdict, evaluator_version, verdict, "
            "evaluator_verdict, human_verdict, score, evaluator_score, status, reason, error, "
            "output, rendered_prompt, raw_answer."
        ),
        "candidate": serializers.DictField(help_text="The same for the candidate."),
    },
)


class CompareItemApi(WorkspaceMixin, APIView):
    """GET /api/v1/compare/<baseline>/vs/<candidate>/items/<item>[?evaluator=]."""

    @extend_schema(
        summary=_("One item of a comparison, side by side"),
        description=_(
            "The item's dataset fields once, then the baseline's and the candidate's result "
            "of one evaluator: verdict (a human correction wins), score, reason, the output "
            "with its word-level difference, the judge's rendered prompt and raw answer. With "
            "repetitions the first one is shown and `item_verdict` is their majority. 404 when "
            "a run is not in this workspace, the runs do not share the evaluator, or neither "
            "scored the item; 400 when the runs are not on the same evalset."
        ),
        parameters=[
            OpenApiParameter("id", UUID, OpenApiParameter.PATH, description=_("Baseline id.")),
            OpenApiParameter(
                "candidate", UUID, OpenApiParameter.PATH, description=_("Candidate id.")
            ),
            OpenApiParameter("item", UUID, OpenApiParameter.PATH, description=_("Item id.")),
            OpenApiParameter(
                "evaluator",
                str,
                description=_(
                    "The evaluator: its `evaluator_id` from the compare endpoint or its public "
                    "id; by default the first evaluator both runs have."
                ),
            ),
        ],
        responses=ITEM_BODY,
        tags=["compare"],
    )
    def get(self, request, id, candidate, item):
        if request.workspace is None:
            raise Http404
        detail = item_comparison(
            workspace=request.workspace,
            baseline_id=id,
            candidate_id=candidate,
            item_id=item,
            evaluator=request.query_params.get("evaluator", ""),
        )
        return Response(item_comparison_json(detail))
