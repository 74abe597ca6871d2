"""garak's side of experiments: the reference a probe's results are compared with, and an
uploaded report imported in the background."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from assay.bases import UploadJob
from assay.models import Workspace

from .runs import Experiment


class GarakReference(models.Model):
    """A file of garak's reference data uploaded to a workspace: a calibration (probe/detector →
    mu, sigma of the pass rate, for Z ratings) or detector metrics (detector → sensitivity,
    specificity, for corrected intervals). The newest of each kind is the one used."""

    class Kind(models.TextChoices):
        CALIBRATION = "calibration", "calibration"
        DETECTOR_METRICS = "detector_metrics", "detector metrics"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    name = models.CharField(max_length=200)
    entries = models.JSONField(
        help_text="calibration: {probe/detector: {mu, sigma}}; "
        "metrics: {detector: {sensitivity, specificity}}"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"garak {self.kind} {self.name}"


class GarakImportStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    COMPLETED = "completed", _("Completed")
    FAILED = "failed", _("Failed")


ACTIVE_GARAK_IMPORTS = (GarakImportStatus.QUEUED, GarakImportStatus.RUNNING)


class GarakImport(UploadJob):
    """An uploaded garak report imported in the background: checked in the request (every
    refusal is a 400 there), then a worker makes each probe's evalset version, evaluators and
    launched run, one probe per transaction, counting `probes_done` of `probes_total`.
    queued → running (claimed by one conditional UPDATE) → completed | failed. `run_key`
    (garak's run id, its scored attempts, partial or not) recognises the same run uploaded
    again; `already` marks an upload answered with an earlier import's experiments."""

    status = models.CharField(
        max_length=16, choices=GarakImportStatus.choices, default=GarakImportStatus.QUEUED
    )
    file_path = models.CharField(
        max_length=500, blank=True, help_text="The uploaded report in storage, until imported."
    )
    threshold = models.FloatField(null=True, blank=True, help_text="As given with the upload.")
    partial = models.BooleanField(default=False)
    run_id = models.CharField(max_length=200, blank=True, help_text="garak's run id")
    run_key = models.CharField(max_length=300, blank=True)
    probes_total = models.PositiveIntegerField(default=0)
    probes_done = models.PositiveIntegerField(default=0)
    experiments = models.ManyToManyField(Experiment, related_name="+", blank=True)
    already = models.BooleanField(default=False)
    notes = models.JSONField(
        default=list, blank=True, help_text="What the import says of the report, as messages."
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            # one active import per run and workspace: a second upload of a run being imported
            # answers with that import instead of making the run twice
            models.UniqueConstraint(
                fields=["workspace", "run_key"],
                condition=models.Q(status__in=ACTIVE_GARAK_IMPORTS) & ~models.Q(run_key=""),
                name="garak_import_one_active_per_run",
            )
        ]

    def __str__(self) -> str:
        return f"garak import {self.file_name} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {GarakImportStatus.COMPLETED, GarakImportStatus.FAILED}

    @property
    def percent(self) -> int:
        if self.status == GarakImportStatus.COMPLETED:
            return 100
        if not self.probes_total:
            return 0
        return min(99, int(100 * self.probes_done / self.probes_total))

    @property
    def message_shown(self) -> str:
        """The failure message in the reader's language (stored with its message id)."""
        from evalsets.items.problems import message_text

        return message_text(self.message, self.message_params)

    @property
    def notes_shown(self) -> list[str]:
        from evalsets.items.problems import message_text

        return [message_text(n.get("text", ""), n) for n in self.notes]
