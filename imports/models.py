"""An import: which importer, the files' content hash (importing the same files again reuses
the first import), its outcome and its report. Large files are imported by a worker: the
import waits `queued` with its files in storage, then runs, then ends completed or failed."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ImportStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    COMPLETED = "completed", _("Completed")
    FAILED = "failed", _("Failed")


# an import of these files is under way or done: the same files again get this one
UNFAILED = (ImportStatus.QUEUED, ImportStatus.RUNNING, ImportStatus.COMPLETED)


class ImportRun(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey("assay.Workspace", on_delete=models.CASCADE)
    kind = models.CharField(max_length=40)
    content_hash = models.CharField(max_length=64)
    file_names = models.JSONField(default=dict)  # field → the uploaded file's name
    status = models.CharField(max_length=16, choices=ImportStatus.choices)
    report = models.JSONField(default=dict)  # Report.as_json()
    error = models.TextField(blank=True, default="")
    # a worker's import: the options and the stored files (field → path) until it has run
    options = models.JSONField(default=dict, blank=True)
    file_paths = models.JSONField(default=dict, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # one import per set of files under way or done: a second import of them gets it
            models.UniqueConstraint(
                fields=["workspace", "kind", "content_hash"],
                condition=models.Q(status__in=["queued", "running", "completed"]),
                name="import_once_per_content",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} import {self.public_id} ({self.status})"

    @property
    def is_active(self) -> bool:
        return self.status in (ImportStatus.QUEUED, ImportStatus.RUNNING)
