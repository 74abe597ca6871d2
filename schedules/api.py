"""API: /api/v1/experiment-templates/ (set-ups to launch again, "Save as template" from an
experiment, launch, the run history) and each template's schedules."""

from __future__ import annotations

from django.utils import timezone
from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated
from experiments.selectors import experiment_get

from . import selectors, services
from . import serializers as s
from .models import ExperimentTemplate, Schedule


def _setup(request, body: dict) -> dict:
    return selectors.versions_resolved(workspace=request.workspace, data=body)


@extend_schema_view(
    list=extend_schema(
        summary=_lazy("List experiment templates"),
        description=_lazy("The workspace's saved experiment set-ups, by name, with schedules."),
    ),
    retrieve=extend_schema(
        summary=_lazy("Get an experiment template"),
        description=_lazy(
            "One template: its evalset (a version or the latest committed one), target, "
            "evaluators (a version or the latest), numbers, name pattern and schedules."
        ),
    ),
    destroy=extend_schema(
        summary=_lazy("Delete an experiment template"),
        description=_lazy("Its schedules and run history go; the experiments stay."),
    ),
)
class ExperimentTemplateViewSet(
    WorkspaceScopedViewSet,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
):
    """Experiment set-ups saved to launch again, by hand, from CI or on a schedule."""

    serializer_class = s.TemplateSerializer
    queryset = ExperimentTemplate.objects.all()

    def scoped_queryset(self):
        return selectors.template_list(workspace=self.request.workspace)

    @extend_schema(
        summary=_lazy("Create an experiment template"),
        description=_lazy(
            "Validated as an experiment launched now would be; every problem is named by its "
            "field and nothing is saved then."
        ),
        request=s.TemplateWriteSerializer,
        responses={201: s.TemplateSerializer},
    )
    def create(self, request):
        body = validated(s.TemplateWriteSerializer, request)
        template = services.template_create(
            workspace=request.workspace, user=request.user, setup=_setup(request, body)
        )
        return Response(s.TemplateSerializer(template).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_lazy("Change an experiment template"),
        description=_lazy("Send only what changes; `bindings`, when sent, replaces the list."),
        request=s.TemplateWriteSerializer,
        responses=s.TemplateSerializer,
    )
    def partial_update(self, request, id=None):
        template = self.get_object()
        body = validated(s.TemplateWriteSerializer, request, partial=True)
        template = services.template_update(template=template, changes=_setup(request, body))
        return Response(s.TemplateSerializer(template).data)

    def perform_destroy(self, instance):
        services.template_delete(template=instance)

    @extend_schema(
        summary=_lazy("Save an experiment as a template"),
        description=_lazy(
            "A template with the experiment's set-up: its evalset version, evaluator versions, "
            "mappings, target and numbers (secrets stay named, never copied)."
        ),
        request=s.FromExperimentSerializer,
        responses={201: s.TemplateSerializer},
    )
    @action(detail=False, methods=["post"], url_path="from-experiment")
    def from_experiment(self, request):
        body = validated(s.FromExperimentSerializer, request)
        experiment = experiment_get(workspace=request.workspace, public_id=body["experiment"])
        template = services.template_from_experiment(
            experiment=experiment, user=request.user, name=body["name"]
        )
        return Response(s.TemplateSerializer(template).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_lazy("Launch an experiment from a template"),
        description=_lazy('"Latest" versions are resolved now; the answer is the launch.'),
        request=None,
        responses={202: s.ScheduleRunSerializer},
    )
    @action(detail=True, methods=["post"])
    def launch(self, request, id=None):
        run = services.template_launch(
            template=self.get_object(), user=request.user, now=timezone.now()
        )
        return Response(s.ScheduleRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary=_lazy("A template's run history"),
        description=_lazy("Launches and skips, newest first, with each run's comparison."),
        responses=s.ScheduleRunSerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def runs(self, request, id=None):
        runs = selectors.template_runs(template=self.get_object())
        return Response(s.ScheduleRunSerializer(runs, many=True).data)


@extend_schema_view(
    list=extend_schema(
        summary=_lazy("List a template's schedules"),
        description=_lazy("Each schedule's cron, time zone, state and next five times (UTC)."),
    ),
    retrieve=extend_schema(
        summary=_lazy("Get a schedule"),
        description=_lazy("A schedule's cron, time zone, state and next five times (UTC)."),
    ),
    destroy=extend_schema(
        summary=_lazy("Delete a schedule"),
        description=_lazy("The schedule goes; the runs it launched stay in the history."),
    ),
)
class ScheduleViewSet(
    WorkspaceScopedViewSet,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
):
    """Cron schedules in a time zone on one template; each shows its next five times."""

    serializer_class = s.ScheduleSerializer
    queryset = Schedule.objects.all()

    def template(self) -> ExperimentTemplate:
        return self.parent(selectors.template_get, "template_id")

    def scoped_queryset(self):
        return self.template().schedules.all()

    @extend_schema(
        summary=_lazy("Add a schedule"),
        description=_lazy(
            "A five-field cron expression in an IANA time zone (0 2 * * * in Asia/Shanghai: "
            "02:00 there). A time whose previous run is unfinished is skipped and recorded."
        ),
        request=s.ScheduleWriteSerializer,
        responses={201: s.ScheduleSerializer},
    )
    def create(self, request, template_id=None):
        template = self.template()
        body = validated(s.ScheduleWriteSerializer, request)
        schedule = services.schedule_create(
            template=template,
            user=request.user,
            cron=body["cron"],
            timezone=body["timezone"],
            now=timezone.now(),
        )
        if body.get("paused"):
            services.schedule_pause(schedule=schedule, paused=True, now=timezone.now())
        return Response(s.ScheduleSerializer(schedule).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_lazy("Change, pause or resume a schedule"),
        description=_lazy(
            "A new cron or zone, or paused true/false; a resumed schedule starts from the "
            "next time after now (the paused times are not run)."
        ),
        request=s.ScheduleWriteSerializer,
        responses=s.ScheduleSerializer,
    )
    def partial_update(self, request, template_id=None, id=None):
        schedule = self.get_object()
        body = validated(s.ScheduleWriteSerializer, request, partial=True)
        now = timezone.now()
        if "cron" in body or "timezone" in body:
            cron, zone = body.get("cron", schedule.cron), body.get("timezone", schedule.timezone)
            schedule = services.schedule_update(
                schedule=schedule, cron=cron, timezone=zone, now=now
            )
        if "paused" in body:
            schedule = services.schedule_pause(schedule=schedule, paused=body["paused"], now=now)
        return Response(s.ScheduleSerializer(schedule).data)

    def perform_destroy(self, instance):
        services.schedule_delete(schedule=instance)
