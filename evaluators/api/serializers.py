"""Serializers for evaluators, versions and templates. Validation lives in the services."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from assay.api.serializers import AuthoredSerializer, StrictSerializer
from assay.vocabulary import ScoreMeaning, Verdict

from ..models import Evaluator, EvaluatorTemplate, EvaluatorTestCase, EvaluatorVersion


class EvaluatorSerializer(AuthoredSerializer):
    config = serializers.JSONField(source="draft_config", read_only=True)
    updated_by = serializers.CharField(source="updated_by.username", read_only=True, default=None)
    template = serializers.CharField(source="template.slug", read_only=True, default=None)
    latest_version = serializers.SerializerMethodField()
    deleted = serializers.BooleanField(source="is_deleted", read_only=True)

    class Meta:
        model = Evaluator
        fields = [
            "id",
            "name",
            "description",
            "kind",
            "tags",
            "score_meaning",
            "default_policy",
            "config",
            "draft_changed",
            "template",
            "latest_version",
            "created_by",
            "updated_by",
            "created_at",
            "updated_at",
            "deleted",
            "deleted_at",
        ]
        read_only_fields = fields

    def get_latest_version(self, obj) -> str | None:
        from ..services import latest_version

        latest = latest_version(obj)
        return latest.version if latest else None


class EvaluatorCreateSerializer(StrictSerializer):
    """Blank (kind [+ language]), from a template (template [+ language]), or a full config."""

    name = serializers.CharField(max_length=120, required=False)
    kind = serializers.CharField(required=False, help_text="A registered kind: llm or code.")
    language = serializers.ChoiceField(choices=["python", "javascript"], required=False)
    template = serializers.SlugField(required=False)
    prompt_locale = serializers.CharField(
        required=False,
        max_length=16,
        help_text="A template's prompt language: en or zh-hans (default: Accept-Language's).",
    )
    description = serializers.CharField(required=False, allow_blank=True)
    tags = serializers.ListField(child=serializers.CharField(max_length=40), required=False)
    score_meaning = serializers.ChoiceField(choices=ScoreMeaning.choices, required=False)
    default_policy = serializers.JSONField(required=False)
    config = serializers.JSONField(required=False)

    def validate(self, attrs):
        if not attrs.get("template") and not attrs.get("kind"):
            raise serializers.ValidationError(
                {"kind": _("Give a kind (llm or code) or a template.")}
            )
        if not attrs.get("template") and not attrs.get("name"):
            raise serializers.ValidationError({"name": _("An evaluator needs a name.")})
        return attrs


class EvaluatorUpdateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=120, required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    tags = serializers.ListField(child=serializers.CharField(max_length=40), required=False)
    score_meaning = serializers.ChoiceField(choices=ScoreMeaning.choices, required=False)
    default_policy = serializers.JSONField(required=False)
    config = serializers.JSONField(required=False)


@extend_schema_serializer(component_name="EvaluatorVersion")  # evalsets has one too
class VersionSerializer(AuthoredSerializer):
    evaluator = serializers.UUIDField(source="evaluator.public_id", read_only=True)

    class Meta:
        model = EvaluatorVersion
        fields = [
            "id",
            "evaluator",
            "version",
            "change_note",
            "kind",
            "score_meaning",
            "default_policy",
            "config",
            "config_hash",
            "test_result",
            "created_by",
            "created_at",
        ]
        read_only_fields = fields


class VersionSubmitSerializer(StrictSerializer):
    version = serializers.CharField(max_length=64)
    change_note = serializers.CharField(required=False, allow_blank=True, max_length=4000)


class DiffSerializer(serializers.Serializer):
    old = serializers.CharField()
    new = serializers.CharField()
    changes = serializers.ListField(child=serializers.DictField())


class TemplateSerializer(serializers.ModelSerializer):
    languages = serializers.ListField(child=serializers.CharField(), read_only=True)

    class Meta:
        model = EvaluatorTemplate
        fields = [
            "slug",
            "name",
            "kind",
            "description",
            "inputs",
            "score_meaning",
            "default_policy",
            "tags",
            "languages",
            "configs",
            "locale",
        ]
        read_only_fields = fields


class DebugRequestSerializer(StrictSerializer):
    """Turns to run; `config` runs an unsaved draft, `version` a submitted one (else the draft)."""

    turns = serializers.JSONField()
    config = serializers.JSONField(required=False)
    version = serializers.CharField(required=False, max_length=64)


class RunOutcomeSerializer(serializers.Serializer):
    status = serializers.CharField()
    score = serializers.FloatField(allow_null=True)
    reason = serializers.CharField()
    verdict = serializers.CharField()
    error = serializers.CharField()
    stdout = serializers.CharField()
    rendered_request = serializers.JSONField(allow_null=True)
    raw_answer = serializers.CharField(allow_null=True)
    latency_ms = serializers.FloatField()
    tokens_in = serializers.IntegerField()
    tokens_out = serializers.IntegerField()
    cached = serializers.BooleanField()


class DebugResponseSerializer(serializers.Serializer):
    results = RunOutcomeSerializer(many=True)


class TestCaseSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    turn = serializers.JSONField()
    expected_verdict = serializers.ChoiceField(choices=Verdict.choices)

    class Meta:
        model = EvaluatorTestCase
        fields = ["id", "name", "turn", "expected_verdict", "note", "created_at", "updated_at"]
        read_only_fields = ["created_at", "updated_at"]
