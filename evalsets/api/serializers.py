"""Serializers for evaluation sets, items, versions and imports. Validation lives in services."""

from __future__ import annotations

import json

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from assay.api.serializers import AuthoredSerializer, StrictSerializer
from assay.vocabulary import CONTENT_TYPES

from ..items.media import with_urls
from ..items.problems import report_rows
from ..models import EvalSet, EvalSetImport, EvalSetItem, EvalSetVersion, ImportFormat


class JSONValueField(serializers.JSONField):
    """JSON in a JSON body, or a JSON string in a multipart form field."""

    def to_internal_value(self, data):
        if isinstance(data, str):
            try:
                return json.loads(data)
            except json.JSONDecodeError as exc:
                raise serializers.ValidationError(
                    gettext("Not valid JSON: %(error)s.") % {"error": exc.msg}
                ) from None
        return super().to_internal_value(data)


class ColumnSerializer(serializers.Serializer):
    name = serializers.CharField()
    content_type = serializers.ChoiceField(choices=CONTENT_TYPES)
    description = serializers.CharField(required=False, allow_blank=True)
    required = serializers.BooleanField(required=False)


class EvalSetSerializer(AuthoredSerializer):
    columns = ColumnSerializer(many=True, read_only=True)
    latest_version = serializers.CharField(source="latest_version.version", default=None)
    draft_item_count = serializers.SerializerMethodField()

    class Meta:
        model = EvalSet
        fields = [
            "id",
            "name",
            "description",
            "columns",
            "tags",
            "draft_changed",
            "draft_item_count",
            "latest_version",
            "created_by",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_draft_item_count(self, obj) -> int:
        """Annotated by the list's selector; counted for a single set."""
        if hasattr(obj, "draft_rows"):
            return obj.draft_rows
        from ..selectors import draft_count

        return draft_count(obj)


class EvalSetUpdateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=120, required=False)
    description = serializers.CharField(required=False, allow_blank=True)
    tags = serializers.ListField(child=serializers.CharField(max_length=40), required=False)
    columns = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="The full new column list; give `old_name` on a column to rename it.",
    )


class EvalSetCreateSerializer(EvalSetUpdateSerializer):
    name = serializers.CharField(max_length=120)
    columns = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text=f"[{{name, content_type: {'|'.join(CONTENT_TYPES)}, description, required}}]",
    )


class ItemSerializer(serializers.ModelSerializer):
    """An item; stored media carry an absolute URL that members can read them by."""

    data = serializers.SerializerMethodField()

    class Meta:
        model = EvalSetItem
        fields = ["item_id", "position", "data", "tags", "human_verdict", "label", "source"]
        read_only_fields = fields

    def get_data(self, obj) -> dict:
        request = self.context.get("request")
        absolute = request.build_absolute_uri if request is not None else None
        return with_urls(obj.data, self.context["workspace"], absolute)


class ItemWriteSerializer(StrictSerializer):
    item_id = serializers.CharField(required=False)
    data = serializers.DictField(required=False, help_text="{column: content object or text}")
    tags = serializers.ListField(child=serializers.CharField(), required=False)
    human_verdict = serializers.CharField(required=False, allow_blank=True)
    label = serializers.CharField(required=False, allow_blank=True)


class ItemsBulkSerializer(StrictSerializer):
    """One all-or-nothing call: nothing is saved unless every change is valid."""

    create = serializers.ListField(child=serializers.DictField(), required=False)
    update = serializers.ListField(child=serializers.DictField(), required=False)
    delete = serializers.ListField(child=serializers.CharField(), required=False)


class ItemsBulkResultSerializer(serializers.Serializer):
    created = ItemSerializer(many=True)
    updated = ItemSerializer(many=True)
    deleted = serializers.IntegerField()


@extend_schema_serializer(component_name="EvalSetVersion")  # evaluators has one too
class VersionSerializer(AuthoredSerializer):
    evalset = serializers.UUIDField(source="evalset.public_id", read_only=True)

    class Meta:
        model = EvalSetVersion
        fields = [
            "id",
            "evalset",
            "version",
            "note",
            "item_count",
            "columns",
            "created_by",
            "created_at",
            "status",
            "rows_copied",
            "committed_at",
            "content_hash",
        ]
        read_only_fields = fields


class RowsUploadSerializer(StrictSerializer):
    file = serializers.FileField(help_text="A CSV or JSONL file of rows.")
    name = serializers.CharField(
        max_length=120,
        required=False,
        allow_blank=True,
        help_text="The set's name (default: the file's name without its extension).",
    )
    format = serializers.ChoiceField(choices=ImportFormat.values, required=False)


class RowsVersionSerializer(VersionSerializer):
    """The version a rows file made or found, with its set's name and whether it is new."""

    evalset_name = serializers.CharField(source="evalset.name", read_only=True)
    created = serializers.SerializerMethodField()

    class Meta(VersionSerializer.Meta):
        fields = [*VersionSerializer.Meta.fields, "evalset_name", "created"]
        read_only_fields = fields

    def get_created(self, obj) -> bool:
        """True when this call committed the version; false when the same rows had made it."""
        return bool(self.context.get("created"))


class VersionCommitSerializer(StrictSerializer):
    version = serializers.CharField(max_length=64)
    note = serializers.CharField(required=False, allow_blank=True, max_length=4000)


class ImportSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    evalset = serializers.UUIDField(source="evalset.public_id", read_only=True)
    percent = serializers.IntegerField(read_only=True)
    errors = serializers.SerializerMethodField()
    message = serializers.SerializerMethodField()

    class Meta:
        model = EvalSetImport
        fields = [
            "id",
            "evalset",
            "status",
            "format",
            "encoding",
            "file_name",
            "file_size",
            "fields",
            "mapping",
            "new_columns",
            "skip_bad_rows",
            "replace",
            "rows_total",
            "rows_done",
            "rows_imported",
            "rows_failed",
            "percent",
            "error_count",
            "errors",
            "message",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def get_errors(self, obj) -> list[dict]:
        """The first 100 problems; the full report (up to 1,000) downloads from errors/."""
        return report_rows(obj.errors, 100)

    def get_message(self, obj) -> str:
        """The message in the Accept-Language; the stored English text when it has no
        message id (an import finished before message ids were stored)."""
        return obj.message_shown


class ImportCreateSerializer(StrictSerializer):
    file = serializers.FileField()
    format = serializers.ChoiceField(choices=ImportFormat.values, required=False)
    encoding = serializers.ChoiceField(
        choices=["utf-8", "utf-8-sig", "gb18030", "latin-1"], required=False, default="utf-8"
    )
    mapping = JSONValueField(required=False, help_text="{file field: column | @tags | '' }")
    new_columns = JSONValueField(required=False, help_text="[{name, content_type}]")
    skip_bad_rows = serializers.BooleanField(required=False, default=False)
    replace = serializers.BooleanField(required=False, default=False)
    add_columns = serializers.BooleanField(
        required=False, default=False, help_text="without a mapping: unmatched fields → new columns"
    )


class MediaUploadSerializer(StrictSerializer):
    file = serializers.FileField()
    content_type = serializers.ChoiceField(choices=["Image", "Audio"], required=False)
