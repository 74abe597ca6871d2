"""API: /api/v1/evaluators/, their versions, and /api/v1/evaluator-templates/."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import LibraryVersionViewSet, WorkspaceMixin, WorkspaceScopedViewSet, validated
from assay.selectors import library_version_get

from . import selectors, services
from . import serializers as s
from .models import Evaluator


class EvaluatorViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Evaluators: the draft is edited with PATCH; versions are submitted under /versions/."""

    serializer_class = s.EvaluatorSerializer
    queryset = Evaluator.objects.all()

    def scoped_queryset(self):
        params = self.request.query_params
        if self.action != "list":
            return Evaluator.objects.filter(workspace=self.request.workspace)
        return selectors.evaluator_list(
            workspace=self.request.workspace,
            search=params.get("q", ""),
            kind=params.get("kind", ""),
            tag=params.get("tag", ""),
            creator=params.get("creator", ""),
            sort=params.get("sort", "updated"),
            deleted=params.get("deleted") in {"1", "true"},
        )

    @extend_schema(
        parameters=[
            OpenApiParameter(n, str, required=False)
            for n in ("q", "kind", "tag", "creator", "sort", "deleted")
        ]
    )
    def list(self, request, *args, **kwargs):
        return super().list(request, *args, **kwargs)

    @extend_schema(request=s.EvaluatorCreateSerializer, responses={201: s.EvaluatorSerializer})
    def create(self, request):
        body = validated(s.EvaluatorCreateSerializer, request)
        evaluator = services.evaluator_create_from_choice(
            workspace=request.workspace, user=request.user, **body
        )
        return Response(s.EvaluatorSerializer(evaluator).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.EvaluatorUpdateSerializer, responses=s.EvaluatorSerializer)
    def partial_update(self, request, id=None):
        evaluator = self.get_object()  # an outsider learns nothing from validation errors
        body = validated(s.EvaluatorUpdateSerializer, request)
        evaluator = services.evaluator_update_draft(evaluator=evaluator, user=request.user, **body)
        return Response(s.EvaluatorSerializer(evaluator).data)

    def destroy(self, request, id=None):
        services.evaluator_delete(evaluator=self.get_object(), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(request=None, responses=s.EvaluatorSerializer)
    @action(detail=True, methods=["post"])
    def restore(self, request, id=None):
        evaluator = services.evaluator_restore(evaluator=self.get_object(), user=request.user)
        return Response(s.EvaluatorSerializer(evaluator).data)

    @extend_schema(request=None, responses={201: s.EvaluatorSerializer})
    @action(detail=True, methods=["post"])
    def copy(self, request, id=None):
        evaluator = services.evaluator_copy(evaluator=self.get_object(), user=request.user)
        return Response(s.EvaluatorSerializer(evaluator).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.DebugRequestSerializer, responses=s.DebugResponseSerializer)
    @action(detail=True, methods=["post"])
    def debug(self, request, id=None):
        """Run the draft (or `config`, or `version`) on 1–10 turns; nothing is saved."""
        evaluator = self.get_object()
        body = validated(s.DebugRequestSerializer, request)
        outcomes = services.evaluator_debug(evaluator=evaluator, **body)
        return Response({"results": [o.to_dict() for o in outcomes]})


class EvaluatorChildMixin(WorkspaceMixin):
    """For routes under /evaluators/{evaluator_id}/: the parent, scoped to the workspace."""

    def evaluator(self) -> Evaluator:
        return self.parent(selectors.evaluator_get, "evaluator_id")


@extend_schema_view(
    create=extend_schema(request=s.VersionSubmitSerializer, responses={201: s.VersionSerializer})
)
class VersionViewSet(EvaluatorChildMixin, LibraryVersionViewSet):
    """Submitted versions of one evaluator (the saved draft, its tests run), and diffs."""

    serializer_class = s.VersionSerializer
    create_serializer_class = s.VersionSubmitSerializer

    def item(self) -> Evaluator:
        return self.evaluator()

    def version_create(self, *, item, user, body):
        return services.evaluator_submit_with_tests(evaluator=item, user=user, **body)

    @extend_schema(
        parameters=[
            OpenApiParameter("old", str, description="a version or 'draft'"),
            OpenApiParameter("new", str, description="a version or 'draft'"),
        ],
        responses=s.DiffSerializer,
    )
    @action(detail=False, methods=["get"])
    def diff(self, request, evaluator_id=None):
        evaluator = self.evaluator()
        old, new = request.query_params.get("old", ""), request.query_params.get("new", "draft")
        changes = services.version_diff(
            old=_config_of(evaluator, old), new=_config_of(evaluator, new)
        )
        return Response({"old": old, "new": new, "changes": changes})


def _config_of(evaluator: Evaluator, ref: str) -> dict:
    if ref == "draft":
        return evaluator.draft_config
    return library_version_get(item=evaluator, version=ref).config


class TemplateViewSet(WorkspaceMixin, viewsets.ReadOnlyModelViewSet):
    """The preset catalogue (the same for every workspace)."""

    serializer_class = s.TemplateSerializer
    lookup_field = "slug"
    lookup_value_converter = "slug"
    workspace_optional = True

    def get_queryset(self):
        return selectors.template_list(kind=self.request.query_params.get("kind", ""))


class TestCaseViewSet(EvaluatorChildMixin, viewsets.ModelViewSet):
    """An evaluator's test cases (debug turns with the expected verdict) and a run action."""

    serializer_class = s.TestCaseSerializer
    lookup_field = "public_id"
    lookup_url_kwarg = "id"
    lookup_value_converter = "uuid"
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Evaluator.objects.none()
        return self.evaluator().test_cases.all()

    def create(self, request, evaluator_id=None):
        evaluator = self.evaluator()
        body = validated(s.TestCaseSerializer, request)
        case = services.testcase_create(evaluator=evaluator, user=request.user, **body)
        return Response(s.TestCaseSerializer(case).data, status=status.HTTP_201_CREATED)

    def partial_update(self, request, evaluator_id=None, id=None):
        case = self.get_object()
        body = validated(s.TestCaseSerializer, request, partial=True)
        case = services.testcase_update(case=case, **body)
        return Response(s.TestCaseSerializer(case).data)

    def perform_destroy(self, instance):
        services.testcase_delete(case=instance)

    @extend_schema(request=None, responses=dict)
    @action(detail=False, methods=["post"])
    def run(self, request, evaluator_id=None):
        """Run every test case on the draft and report agreement."""
        return Response(services.evaluator_run_tests(evaluator=self.evaluator()))
