"""The API's bodies and answers of garak: references, report uploads and import jobs."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from assay.api.serializers import StrictSerializer

from ..models import GarakImport, GarakReference
from .runs import ExperimentListSerializer


class GarakReferenceSerializer(serializers.ModelSerializer):
    entries = serializers.SerializerMethodField()

    class Meta:
        model = GarakReference
        fields = ["id", "kind", "name", "entries", "created_at"]
        read_only_fields = fields

    def get_entries(self, obj) -> int:
        return len(obj.entries)


class GarakImportSerializer(StrictSerializer):
    """A garak report.jsonl (multipart `file`)."""

    file = serializers.FileField()


class GarakScanImportSerializer(GarakImportSerializer):
    """A garak report.jsonl (multipart `file`), with the run's threshold when it is known and
    whether a report cut short may be imported as partial."""

    threshold = serializers.FloatField(
        required=False,
        min_value=0.0,
        max_value=1.0,
        help_text="garak's --eval_threshold for the run; unset: read from the report's counts",
    )
    partial = serializers.BooleanField(
        required=False,
        default=False,
        help_text="import a report without its closing completion entry (what it holds)",
    )


class GarakImportJobSerializer(serializers.ModelSerializer):
    """A garak import job: its status, probes done of N, the experiments made, the notes and
    a failed one's message (in the reader's language), and the URL to poll."""

    id = serializers.UUIDField(source="public_id", read_only=True)
    percent = serializers.IntegerField(read_only=True)
    experiments = serializers.SerializerMethodField()
    notes = serializers.ListField(source="notes_shown", child=serializers.CharField())
    message = serializers.CharField(source="message_shown")
    poll_url = serializers.SerializerMethodField()

    class Meta:
        model = GarakImport
        fields = [
            "id",
            "status",
            "file_name",
            "file_size",
            "threshold",
            "partial",
            "run_id",
            "probes_total",
            "probes_done",
            "percent",
            "already",
            "experiments",
            "notes",
            "message",
            "created_at",
            "started_at",
            "finished_at",
            "poll_url",
        ]
        read_only_fields = fields

    def get_experiments(self, obj) -> list[dict]:
        rows = obj.experiments.select_related("evalset_version__evalset", "created_by")
        return ExperimentListSerializer(rows.order_by("pk"), many=True).data

    def get_poll_url(self, obj) -> str:
        path = reverse("garak-import-detail", kwargs={"id": obj.public_id})
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path
