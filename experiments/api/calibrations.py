"""API: /api/v1/evaluators/{evaluator_id}/calibrations/ — how well an evaluator's versions
agree with people. Served by experiments, whose table it reads (evaluators may not)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, viewsets
from rest_framework.response import Response

from evaluators.api.library import EvaluatorChildMixin

from ..selectors.calibrations import evaluator_calibrations


class EvaluatorCalibrationViewSet(EvaluatorChildMixin, viewsets.ViewSet):
    """An evaluator's calibrations, from labelled runs and from reviewers' gold labels."""

    @extend_schema(
        summary=_lazy("List an evaluator's calibrations"),
        description=_lazy(
            "Each calibration of the evaluator's versions (or of one: `version`), newest "
            "first: where its human labels came from (`source`: a labelled run's evaluation "
            "set, or an annotation queue's gold labels), the confusion counts (a fail is the "
            "positive class), sensitivity and specificity with Wilson intervals (95 %), "
            "agreement and judge-versus-human kappa and, for gold labels, the reviewers' own "
            "alpha (`inter_human_alpha`: the ceiling for the judge's kappa). `usable`: enough "
            "rows (30) to correct other runs' fail rates. 404 for a version the evaluator "
            "does not have."
        ),
        parameters=[OpenApiParameter("version", str, required=False)],
        responses={200: dict},
    )
    def list(self, request, evaluator_id=None):
        evaluator = self.evaluator()
        wanted = request.query_params.get("version")
        version = None
        if wanted:
            version = evaluator.versions.filter(version=wanted).first()
            if version is None:
                raise exceptions.NotFound(_("No such version of this evaluator."))
        found = evaluator_calibrations(evaluator=evaluator, version=version)
        return Response({"count": len(found), "results": found})
