"""API: /api/v1/experiments/ — create, launch, cancel, retry failed rows, clone, push outputs,
re-score, the CI gate, garak references; results in `results`, words in `schema`."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated

from .. import selectors, services
from .. import serializers as s
from ..models import Experiment
from ..results.gate import gate_check
from ..scoring import EXPERIMENT
from ..stats.interval_settings import interval_settings
from .results import ExperimentResultsMixin
from .runs import RunActionsMixin
from .schema import EXPERIMENT_DOCS

GATE_CHECKS_SHOWN = 100  # one a baseline and options: a run has a few

GateQuery = s.GateQuerySerializer


def _baseline(workspace, ref: str, candidate):
    if ref != "latest":
        return selectors.experiment_get(workspace=workspace, public_id=ref)
    found = selectors.baseline_latest(workspace=workspace, candidate=candidate)
    if found is None:
        raise ValidationError(
            {"baseline": gettext("No completed run on this evalset is marked as a baseline.")}
        )
    return found


def validated_gate(request) -> dict:
    """The gate's options: the query string's, and for a POST its body's over them (a CI
    script may send either)."""
    data = request.query_params.dict()
    if request.method == "POST":
        body = request.data.dict() if isinstance(request.data, QueryDict) else request.data
        data = {**data, **body} if isinstance(body, dict) else body
    query = s.GateQuerySerializer(data=data)
    query.is_valid(raise_exception=True)
    return query.validated_data


@EXPERIMENT_DOCS
class ExperimentViewSet(
    RunActionsMixin,
    ExperimentResultsMixin,
    WorkspaceScopedViewSet,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
):
    """Experiments: created as drafts (or launched at once), run by workers, read while running."""

    serializer_class = s.ExperimentSerializer
    queryset = Experiment.objects.all()
    run_kind = EXPERIMENT
    run_serializer = s.ExperimentSerializer

    def scoped_queryset(self):
        if self.action != "list":
            return Experiment.objects.filter(workspace=self.request.workspace).select_related(
                "evalset_version__evalset", "created_by", "cloned_from"
            )
        params = self.request.query_params
        return selectors.experiment_list(
            workspace=self.request.workspace,
            status=params.get("status", ""),
            evalset=params.get("evalset", ""),
        )

    def get_serializer_class(self):
        return s.ExperimentListSerializer if self.action == "list" else s.ExperimentSerializer

    @extend_schema(
        parameters=[OpenApiParameter(n, str, required=False) for n in ("status", "evalset")]
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(
        request=s.ExperimentCreateSerializer,
        responses={201: s.ExperimentSerializer, 202: s.ExperimentSerializer},
    )
    def create(self, request):
        """A draft (201), or with `launch: true` a launched experiment (202)."""
        body = validated(s.ExperimentCreateSerializer, request)
        data = dict(body)
        experiment = services.experiment_create(
            workspace=request.workspace,
            user=request.user,
            **selectors.experiment_inputs(workspace=request.workspace, data=data),
        )
        code = status.HTTP_202_ACCEPTED if data["launch"] else status.HTTP_201_CREATED
        return Response(s.ExperimentSerializer(experiment).data, status=code)

    @extend_schema(request=None, responses={202: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def launch(self, request, id=None):
        experiment = services.experiment_launch(experiment=self.get_object())
        return Response(s.ExperimentSerializer(experiment).data, status=status.HTTP_202_ACCEPTED)

    def retried_body(self, run, counts) -> dict:
        """What retry-failed/ answers: the rows of each kind run again, and the run."""
        return {
            "retried": counts.total,
            "target_rows": counts.target_rows,
            "evaluator_rows": counts.evaluator_rows,
            "experiment": s.ExperimentSerializer(run).data,
        }

    @extend_schema(request=s.OutputsPushSerializer, responses={202: s.PushedSerializer})
    @action(detail=True, methods=["post"])
    def outputs(self, request, id=None):
        """Push outputs for an external-target run; the first output of a row wins."""
        experiment = self.get_object()  # an outsider learns nothing from validation errors
        body = validated(s.OutputsPushSerializer, request)
        counts = services.outputs_push(experiment=experiment, outputs=body["outputs"])
        return Response(counts, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None, responses={202: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def close(self, request, id=None):
        """No more outputs will be pushed: rows without one are scored unknown ("no output")."""
        experiment = services.experiment_close(experiment=self.get_object())
        return Response(s.ExperimentSerializer(experiment).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=s.RescoreSerializer, responses={202: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def rescore(self, request, id=None):
        """Score this finished run's target outputs again with other evaluator versions; the
        target is not called. The new run records this one as `outputs_from`."""
        experiment = self.get_object()
        body = validated(s.RescoreSerializer, request)
        created = services.experiment_rescore(
            experiment=experiment,
            user=request.user,
            bindings=selectors.bindings_resolved(
                workspace=request.workspace, bindings=body["bindings"]
            ),
            name=body["name"],
            launch=body["launch"],
        )
        code = status.HTTP_202_ACCEPTED if body["launch"] else status.HTTP_201_CREATED
        return Response(s.ExperimentSerializer(created).data, status=code)

    @extend_schema(request=s.BaselineSerializer, responses=s.ExperimentSerializer)
    @action(detail=True, methods=["post"])
    def baseline(self, request, id=None):
        """Mark or unmark this completed run as a baseline for the CI gate."""
        experiment = self.get_object()
        body = validated(s.BaselineSerializer, request)
        experiment = services.experiment_mark_baseline(experiment=experiment, **body)
        return Response(s.ExperimentSerializer(experiment).data)

    @extend_schema(methods=["GET"], parameters=[GateQuery], responses=OpenApiTypes.OBJECT)
    @extend_schema(methods=["POST"], request=GateQuery, responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["get", "post"])
    def gate(self, request):
        """Does the candidate regress against the baseline? `passed`, a row per evaluator and
        a Markdown summary (the CLI's `assay gate` exits 1 when `passed` is false). GET only
        reads; POST records the decision and announces a first failure (`gate.failed`)."""
        params = dict(validated_gate(request))
        params.pop("workspace", None)
        candidate = selectors.experiment_get(
            workspace=request.workspace, public_id=params.pop("candidate")
        )
        baseline = _baseline(request.workspace, params.pop("baseline"), candidate)
        if request.method == "GET":
            return Response(gate_check(baseline=baseline, candidate=candidate, **params).to_dict())
        result, decision = services.gate_decision_record(
            baseline=baseline, candidate=candidate, options=params, user=request.user
        )
        recorded = s.GateDecisionSerializer(decision).data
        return Response({**result.to_dict(), "recorded": recorded})

    @extend_schema(responses=s.GateCheckSerializer(many=True))
    @action(detail=True, methods=["get"], url_path="gate-decisions")
    def gate_decisions(self, request, id=None):
        decisions = selectors.gate_decisions(experiment=self.get_object())[:GATE_CHECKS_SHOWN]
        return Response(s.GateCheckSerializer(decisions, many=True).data)

    @extend_schema(request=s.IntervalDefaultsSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["get", "put"], url_path="interval-defaults")
    def interval_defaults(self, request):
        """The workspace's default interval settings for new runs (GET), or new ones (PUT:
        unset keys fall back to garak's defaults). A run's own `interval` overrides them."""
        if request.method == "PUT":
            body = validated(s.IntervalDefaultsSerializer, request)
            settings = services.workspace_interval_defaults_set(
                workspace=request.workspace, interval=body["interval"]
            )
        else:
            settings = interval_settings(request.workspace.interval_defaults)
        return Response({"interval": settings})

    @extend_schema(
        request={"multipart/form-data": s.GarakImportSerializer},
        responses={201: s.GarakReferenceSerializer, 200: s.GarakReferenceSerializer(many=True)},
    )
    @action(
        detail=False,
        methods=["get", "post"],
        url_path="garak-references",
        parser_classes=[MultiPartParser, FormParser],
    )
    def garak_references(self, request):
        """garak's reference files in this workspace (GET), or a new one (POST `file`): a
        calibration (Z ratings for matching probe/detector names) or detector metrics
        (Se/Sp-corrected intervals for those detectors). The newest of each kind is used."""
        if request.method == "GET":
            found = selectors.garak_references(workspace=request.workspace)
            return Response(s.GarakReferenceSerializer(found, many=True).data)
        upload = validated(s.GarakImportSerializer, request)["file"]
        data = services.garak_upload_bytes(upload=upload, limit=services.MAX_REFERENCE_BYTES)
        made = services.garak_reference_upload(
            workspace=request.workspace, name=upload.name, data=data
        )
        return Response(s.GarakReferenceSerializer(made).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.TargetTestSerializer, responses=OpenApiTypes.OBJECT)
    @action(detail=False, methods=["post"], url_path="target-test")
    def target_test(self, request):
        """Send one row through a target before creating the experiment: the request (secrets
        named, never shown), the raw response and what was extracted. Nothing is stored."""
        body = validated(s.TargetTestSerializer, request)
        version = selectors.evalset_version_required(
            workspace=request.workspace, public_id=body["evalset_version"]
        )
        tried = services.target_test(
            workspace=request.workspace,
            evalset_version=version,
            target=body["target"],
            item_id=body.get("item_id"),
        )
        return Response(tried)

    @extend_schema(request=s.CloneSerializer, responses={201: s.ExperimentSerializer})
    @action(detail=True, methods=["post"])
    def clone(self, request, id=None):
        """A new draft with the same set-up; `versions` swaps evaluator versions."""
        experiment = self.get_object()
        body = validated(s.CloneSerializer, request)
        data = body
        clone = services.experiment_clone(
            experiment=experiment,
            user=request.user,
            name=data.get("name") or None,
            versions=selectors.clone_versions(
                workspace=request.workspace,
                experiment=experiment,
                versions=data.get("versions") or {},
            ),
            evalset_version=selectors.evalset_version_required(
                workspace=request.workspace, public_id=data.get("evalset_version")
            ),
        )
        clone = selectors.experiment_get(workspace=request.workspace, public_id=clone.public_id)
        return Response(s.ExperimentSerializer(clone).data, status=status.HTTP_201_CREATED)
