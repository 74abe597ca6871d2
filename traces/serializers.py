"""API shapes of traces: ingest keys (the key itself only in the answer to its creation)."""

from rest_framework import serializers

from assay.api.serializers import StrictSerializer

from .models import IngestKey


class IngestKeySerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)

    class Meta:
        model = IngestKey
        fields = ["id", "name", "prefix", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class IngestKeyCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=120)


class IssuedIngestKeySerializer(IngestKeySerializer):
    key = serializers.CharField(
        read_only=True,
        help_text="Shown once; store it now. Exporters send it as `Authorization: Bearer <key>`.",
    )

    class Meta(IngestKeySerializer.Meta):
        fields = IngestKeySerializer.Meta.fields + ["key"]
