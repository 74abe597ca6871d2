"""The API's bodies and answers for templates, their schedules and their runs."""

from __future__ import annotations

from django.utils import timezone
from rest_framework import serializers

from assay.api.serializers import StrictSerializer
from experiments.targets import target_get

from . import services
from .models import ExperimentTemplate, Schedule, ScheduleRun

MAX_BINDINGS = 20


class TemplateWriteSerializer(StrictSerializer):
    """A template's setup: what an experiment's body holds, plus "latest" switches, a name
    pattern and a baseline. Ids are public ids or "name@version"."""

    name = serializers.CharField(max_length=160, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True, max_length=4000)
    evalset_version = serializers.CharField(
        max_length=200, help_text="An evalset version (id or name@version)."
    )
    evalset_latest = serializers.BooleanField(
        required=False, help_text="Launch on the set's latest committed version instead."
    )
    target = serializers.JSONField(required=False, allow_null=True)
    bindings = serializers.ListField(
        child=serializers.DictField(),
        max_length=MAX_BINDINGS,
        help_text='[{"evaluator_version": id or name@version, "latest": false, "mapping": {…}, '
        "and an experiment binding's other keys}]; latest: the evaluator's newest version.",
    )
    concurrency = serializers.IntegerField(required=False)
    chunk_size = serializers.IntegerField(required=False)
    repetitions = serializers.IntegerField(required=False)
    interval = serializers.JSONField(required=False, allow_null=True)
    name_pattern = serializers.CharField(
        required=False, max_length=160, help_text="A run's name: {template}, {date}, {time}."
    )
    baseline = serializers.CharField(
        required=False, allow_null=True, allow_blank=True, max_length=64
    )


class FromExperimentSerializer(StrictSerializer):
    experiment = serializers.UUIDField()
    name = serializers.CharField(max_length=160, allow_blank=True)


class ScheduleWriteSerializer(StrictSerializer):
    cron = serializers.CharField(max_length=120, help_text="Five fields, e.g. 0 2 * * *.")
    timezone = serializers.CharField(max_length=64, help_text="IANA, e.g. Asia/Shanghai.")
    paused = serializers.BooleanField(required=False)


class ScheduleSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    next_runs = serializers.SerializerMethodField()

    class Meta:
        model = Schedule
        fields = ["id", "cron", "timezone", "paused", "next_run_at", "next_runs", "last_run_at"]
        read_only_fields = fields

    def get_next_runs(self, obj) -> list[str]:
        times = services.schedule_next_times(schedule=obj, now=timezone.now())
        return [t.isoformat() for t in times]


def _run_ref(experiment) -> dict | None:
    if experiment is None:
        return None
    return {"id": str(experiment.public_id), "name": experiment.name, "status": experiment.status}


class ScheduleRunSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    schedule = serializers.UUIDField(source="schedule.public_id", default=None)
    experiment = serializers.SerializerMethodField()
    blocked_by = serializers.SerializerMethodField()
    compared_with = serializers.SerializerMethodField()

    class Meta:
        model = ScheduleRun
        fields = [
            "id",
            "schedule",
            "experiment",
            "outcome",
            "reason",
            "blocked_by",
            "due_at",
            "missed",
            "comparison",
            "comparison_text",
            "comparison_detail",
            "compared_with",
            "compared_at",
            "created_at",
        ]
        read_only_fields = fields

    def get_experiment(self, obj) -> dict | None:
        return _run_ref(obj.experiment)

    def get_blocked_by(self, obj) -> dict | None:
        return _run_ref(obj.blocked_by)

    def get_compared_with(self, obj) -> dict | None:
        return _run_ref(obj.compared_with)


class TemplateSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    evalset = serializers.UUIDField(source="evalset.public_id")
    evalset_name = serializers.CharField(source="evalset.name")
    evalset_version = serializers.CharField(source="evalset_version.version", default=None)
    evalset_latest = serializers.SerializerMethodField()
    target = serializers.SerializerMethodField()
    bindings = serializers.SerializerMethodField()
    baseline = serializers.SerializerMethodField()
    schedules = ScheduleSerializer(many=True, read_only=True)

    class Meta:
        model = ExperimentTemplate
        fields = [
            "id",
            "name",
            "description",
            "evalset",
            "evalset_name",
            "evalset_version",
            "evalset_latest",
            "target",
            "bindings",
            "concurrency",
            "chunk_size",
            "repetitions",
            "interval",
            "name_pattern",
            "baseline",
            "schedules",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_evalset_latest(self, obj) -> bool:
        return obj.evalset_version_id is None

    def get_target(self, obj) -> dict:
        """The target as an experiment shows it (secrets are named there, never held)."""
        spec = target_get(obj.target_kind)
        return {"kind": obj.target_kind, **spec.public_config(obj.target_config)}

    def get_bindings(self, obj) -> list[dict]:
        return [
            {
                "evaluator": str(b.evaluator.public_id),
                "evaluator_name": b.evaluator.name,
                "version": b.evaluator_version.version if b.evaluator_version else None,
                "latest": b.evaluator_version_id is None,
                "mapping": b.mapping,
                **b.options,
            }
            for b in obj.bindings.select_related("evaluator", "evaluator_version")
        ]

    def get_baseline(self, obj) -> dict | None:
        return _run_ref(obj.baseline)
