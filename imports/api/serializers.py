"""The API's view of an import (the report as the importer wrote it) and of its request."""

from __future__ import annotations

import json

from rest_framework import serializers

from ..models import ImportRun


class ImportRunSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    created_by = serializers.CharField(source="created_by.username", default=None)

    class Meta:
        model = ImportRun
        fields = [
            "id",
            "kind",
            "status",
            "file_names",
            "report",
            "error",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class ImportOptionsField(serializers.JSONField):
    """`options` as a JSON object, or a JSON string of one (a multipart field is text)."""

    def to_internal_value(self, data):
        if isinstance(data, str):
            try:
                data = json.loads(data or "{}")
            except ValueError:
                raise serializers.ValidationError("options is not JSON.") from None
        if not isinstance(data, dict):
            raise serializers.ValidationError("options is a JSON object.")
        return data


class ImportRequestSerializer(serializers.Serializer):
    """Each of the importer's files under its name (multipart), and its options as JSON."""

    options = ImportOptionsField(required=False, default=dict)
