"""The API of online evaluation: `/api/v1/online-rules/`."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated
from experiments.selectors.resolving import evaluator_version_for

from . import selectors, services
from . import serializers as s
from .models import OnlineRule


@extend_schema_view(
    list=extend_schema(
        summary=_lazy("List online rules"),
        description=_lazy("The workspace's rules that score live traffic, by name."),
    ),
    retrieve=extend_schema(summary=_lazy("Get an online rule")),
    destroy=extend_schema(summary=_lazy("Delete an online rule")),
)
class OnlineRuleViewSet(
    WorkspaceScopedViewSet,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
):
    """Rules that score production spans, traces or sessions with evaluator versions."""

    serializer_class = s.OnlineRuleSerializer
    queryset = OnlineRule.objects.all()

    def scoped_queryset(self):
        return selectors.online_rules_list(workspace=self.request.workspace)

    @extend_schema(
        summary=_lazy("Create an online rule"),
        description=_lazy(
            "Scope, filter, environment, sampling rate, daily budgets and the evaluator "
            "versions with their mappings (suggested from variable names when left out). "
            "Every problem is named by its field; nothing is saved when there is one."
        ),
        request=s.OnlineRuleWriteSerializer,
        responses={201: s.OnlineRuleSerializer},
    )
    def create(self, request):
        body = validated(s.OnlineRuleWriteSerializer, request)
        evaluators = self._evaluators(body.pop("evaluators"))
        rule = services.online_rule_create(
            workspace=request.workspace, user=request.user, fields=body, evaluators=evaluators
        )
        return Response(self._shown(rule), status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_lazy("Change an online rule"),
        description=_lazy("Send only what changes; `evaluators`, when sent, replaces the list."),
        request=s.OnlineRuleWriteSerializer,
        responses=s.OnlineRuleSerializer,
    )
    def partial_update(self, request, id=None):
        rule = self.get_object()
        body = validated(s.OnlineRuleWriteSerializer, request, partial=True)
        evaluators = body.pop("evaluators", None)
        evaluators = None if evaluators is None else self._evaluators(evaluators)
        rule = services.online_rule_update(rule=rule, fields=body, evaluators=evaluators)
        return Response(self._shown(rule))

    def perform_destroy(self, instance):
        services.online_rule_delete(rule=instance)

    def _evaluators(self, entries: list[dict]) -> list[dict]:
        """Each entry's evaluator version resolved in this workspace (None when it is not)."""
        resolved = []
        for entry in entries:
            ref = entry.get("evaluator_version")
            version = evaluator_version_for(workspace=self.request.workspace, public_id=ref)
            resolved.append({**entry, "evaluator_version": version})
        return resolved

    def _shown(self, rule: OnlineRule) -> dict:
        fresh = selectors.online_rules_list(workspace=self.request.workspace).get(pk=rule.pk)
        return s.OnlineRuleSerializer(fresh).data
