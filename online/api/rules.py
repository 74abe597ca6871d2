"""The API of online evaluation: `/api/v1/online-rules/`."""

from __future__ import annotations

from dataclasses import asdict

from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated
from experiments.selectors.resolving import evaluator_version_for

from .. import selectors, services
from ..models import OnlineRule, RuleAlert
from . import serializers as s


@extend_schema_view(
    list=extend_schema(
        summary=_lazy("List online rules"),
        description=_lazy("The workspace's rules that score live traffic, by name."),
    ),
    retrieve=extend_schema(
        summary=_lazy("Get an online rule"),
        description=_lazy("One rule: its scope, filter, rate and budgets, and its evaluators."),
    ),
    destroy=extend_schema(
        summary=_lazy("Delete an online rule"),
        description=_lazy("The rule goes, with its outcomes and runs. Editors."),
    ),
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

    @extend_schema(
        summary=_lazy("List a rule's outcomes"),
        description=_lazy(
            "What the rule's evaluators made of each sampled span, newest first: a verdict, "
            "score and reason, or why there is none (`skip_reason`). Filters: `verdict`, "
            "`skip_reason`, `status`, `trace_id`, `evaluator_version`."
        ),
        parameters=[s.OutcomeFilterSerializer],
        responses=s.OnlineOutcomeSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def results(self, request, id=None):
        query = s.OutcomeFilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        outcomes = selectors.rule_outcomes(rule=self.get_object(), filters=query.validated_data)
        page = self.paginate_queryset(outcomes)
        return self.get_paginated_response(s.OnlineOutcomeSerializer(page, many=True).data)

    @extend_schema(
        summary=_lazy("Read a rule's monitor"),
        description=_lazy(
            "Per evaluator, the last `count` windows (`window`: hour, day or week): the fail and "
            "pass rates weighed by traffic with their intervals (at 95 %) and denominators, the "
            "rate corrected for the judge's measured error where its version has a calibration, "
            "volume, sampled share, unknowns, skips by reason, cost, judge latency and span-to-"
            "score delay (p50, p95), and the change against the window before (`change_p`, "
            "`changed` at p < 0.05)."
        ),
        parameters=[s.MonitorQuerySerializer],
        responses={200: dict},
    )
    @action(detail=True, methods=["get"])
    def monitor(self, request, id=None):
        query = s.MonitorQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = selectors.rule_monitor(
            rule=self.get_object(),
            window=query.validated_data["window"],
            count=query.validated_data["count"],
            now=timezone.now(),
        )
        return Response({"evaluators": s.monitor_data(rows)})

    @extend_schema(
        summary=_lazy("Backfill a rule over a past window"),
        description=_lazy(
            "Scores the spans of [since, until) that were stored before the rule began, "
            "sampled at its rate. Without `start` (or with false) it only answers the "
            "estimate: spans, sampled items, evaluator calls and their cost (null when a "
            "judge has no known price yet); with `start: true` it also launches the run. A "
            "window must end where the rule's coverage begins (its creation, or its last "
            "backfill) or earlier."
        ),
        request=s.BackfillSerializer,
        responses={200: dict, 201: dict},
    )
    @action(detail=True, methods=["post"])
    def backfill(self, request, id=None):
        rule = self.get_object()  # another workspace's rule is a 404 before the body is read
        body = validated(s.BackfillSerializer, request)
        estimate, run = services.online_backfill(rule=rule, **body)
        data = {**asdict(estimate), "run": None if run is None else str(run.public_id)}
        return Response(data, status=status.HTTP_201_CREATED if run else status.HTTP_200_OK)

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


@extend_schema_view(
    list=extend_schema(
        summary=_lazy("List a rule's alerts"),
        description=_lazy("Each alert's metric, settings and state (open, last window decided)."),
    ),
    retrieve=extend_schema(
        summary=_lazy("Get an alert"),
        description=_lazy(
            "An alert's metric, settings and state: open or not, and the last window decided."
        ),
    ),
    destroy=extend_schema(
        summary=_lazy("Delete an alert"),
        description=_lazy("The alert goes with its history. Editors."),
    ),
)
class RuleAlertViewSet(
    WorkspaceScopedViewSet,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
):
    """Alerts on a rule's windows: statistical against a rolling baseline, or a raw
    threshold when asked."""

    serializer_class = s.RuleAlertSerializer
    queryset = RuleAlert.objects.all()

    def rule(self) -> OnlineRule:
        return self.parent(selectors.online_rule_get, "rule_id")

    def scoped_queryset(self):
        return selectors.rule_alerts(rule=self.rule())

    @extend_schema(
        summary=_lazy("Add an alert to a rule"),
        description=_lazy(
            "A metric (fail_rate, unknown_rate, mean_score, cost, volume) of one of the rule's "
            "evaluator versions (volume: the rule's). By default it fires when a window (an "
            "hour) is significantly worse than the 24 before, at most one quiet week in "
            "twenty raising a false alert; `mode: threshold` with a `threshold` fires when the raw "
            "value crosses it. Every problem is named by its field."
        ),
        request=s.RuleAlertWriteSerializer,
        responses={201: s.RuleAlertSerializer},
    )
    def create(self, request, rule_id=None):
        rule = self.rule()
        body = self._fields(rule, validated(s.RuleAlertWriteSerializer, request))
        alert = services.rule_alert_create(rule=rule, user=request.user, fields=body)
        return Response(s.RuleAlertSerializer(alert).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_lazy("Change an alert"),
        description=_lazy("Send only what changes; an open alert stays open."),
        request=s.RuleAlertWriteSerializer,
        responses=s.RuleAlertSerializer,
    )
    def partial_update(self, request, rule_id=None, id=None):
        alert = self.get_object()
        body = validated(s.RuleAlertWriteSerializer, request, partial=True)
        alert = services.rule_alert_update(alert=alert, fields=self._fields(alert.rule, body))
        return Response(s.RuleAlertSerializer(alert).data)

    @extend_schema(
        summary=_lazy("List an alert's history"),
        description=_lazy(
            "Each time it fired or resolved, newest window first: the window, the value and "
            "its baseline, z and which test decided, the message webhooks were sent."
        ),
        responses=s.AlertEventSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def events(self, request, rule_id=None, id=None):
        page = self.paginate_queryset(selectors.alert_events(alert=self.get_object()))
        return self.get_paginated_response(s.AlertEventSerializer(page, many=True).data)

    def perform_destroy(self, instance):
        services.rule_alert_delete(alert=instance)

    def _fields(self, rule: OnlineRule, body: dict) -> dict:
        """The evaluator version named resolved to the rule's evaluator (a foreign one is a
        problem named `evaluator_version`)."""
        if "evaluator_version" not in body:
            return body
        ref = body.pop("evaluator_version")
        found = rule.evaluators.filter(evaluator_version__public_id=ref).first()
        if ref is not None and found is None:
            raise ValidationError(
                {"evaluator_version": [_("Not an evaluator version of this rule.")]}
            )
        return {**body, "rule_evaluator": found}
