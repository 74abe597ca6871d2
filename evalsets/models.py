"""Evaluation sets: typed columns, a draft of items, immutable versions, and import jobs.

Items live in one table. A draft item has `version` NULL; committing a version copies the draft
rows with one INSERT … SELECT, so a version's rows are its own and never change. Rows written by
an import carry `import_job` and stay invisible until that job completes, which is what makes an
import all-or-nothing without one giant transaction.
"""

from __future__ import annotations

import json
import uuid

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from assay.bases import ImmutableModel, LibraryItem, UploadJob
from assay.vocabulary import Verdict


class UnicodeJSONEncoder(DjangoJSONEncoder):
    """Keep non-ASCII text readable in the stored JSON, so text search matches it on SQLite."""

    def __init__(self, *args, **kwargs):
        kwargs["ensure_ascii"] = False
        super().__init__(*args, **kwargs)


# The JSON text the importer writes (the shape the ORM stores); one encoder, built once.
dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode


class EvalSet(LibraryItem):
    """A dataset of typed columns: a mutable draft, and the versions experiments pin."""

    columns = models.JSONField(default=list, blank=True)
    draft_changed = models.BooleanField(
        default=False, help_text="The draft differs from the latest committed version."
    )

    class Meta(LibraryItem.Meta):
        pass

    @property
    def column_names(self) -> list[str]:
        return [c["name"] for c in self.columns]


class VersionStatus(models.TextChoices):
    COMMITTING = "committing", _("Committing")
    READY = "ready", _("Ready")


class EvalSetVersion(ImmutableModel):
    """A frozen copy of the draft: its columns and its items never change.

    A large commit copies its rows in the background (`evalsets/committing.py`): the version is
    `committing` until every row is there. Its commit fields (status, progress, the copy cursor)
    are the only ones that change after insert, and only through that module.
    """

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    evalset = models.ForeignKey(EvalSet, on_delete=models.PROTECT, related_name="versions")
    version = models.CharField(max_length=64)
    note = models.TextField(blank=True)
    item_count = models.PositiveIntegerField()
    columns = models.JSONField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(
        max_length=16, choices=VersionStatus.choices, default=VersionStatus.READY
    )
    rows_copied = models.BigIntegerField(default=0)
    # The draft key (position, id) of the last row copied: where a resumed copy goes on.
    copy_position = models.BigIntegerField(null=True, blank=True)
    copy_row = models.BigIntegerField(null=True, blank=True)
    commit_claimed_at = models.DateTimeField(null=True, blank=True)
    committed_at = models.DateTimeField(null=True, blank=True)
    # sha256 of the rows of a version made from a rows file (`evalset_version_from_rows`), so
    # the same rows find this version again; "" for versions committed from an edited draft.
    content_hash = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["evalset", "version"], name="unique_evalset_version")
        ]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.evalset.name}@{self.version}"

    @property
    def is_ready(self) -> bool:
        return self.status == VersionStatus.READY

    @property
    def percent(self) -> int:
        if self.is_ready or not self.item_count:
            return 100
        return min(99, int(100 * self.rows_copied / self.item_count))


class ImportStatus(models.TextChoices):
    MAPPING = "mapping", _("Waiting for the column mapping")
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    COMPLETED = "completed", _("Completed")
    FAILED = "failed", _("Failed")


class ImportFormat(models.TextChoices):
    CSV = "csv", "CSV"
    JSONL = "jsonl", "JSONL"


class EvalSetImport(UploadJob):
    """One file import into an evalset's draft: a job with a status and progress counters."""

    evalset = models.ForeignKey(EvalSet, on_delete=models.CASCADE, related_name="imports")
    status = models.CharField(
        max_length=16, choices=ImportStatus.choices, default=ImportStatus.MAPPING
    )
    format = models.CharField(max_length=8, choices=ImportFormat.choices)
    file_path = models.CharField(max_length=500, help_text="The uploaded file in storage.")
    encoding = models.CharField(max_length=16, default="utf-8")
    fields = models.JSONField(default=list, blank=True, help_text="Fields found in the file.")
    mapping = models.JSONField(default=dict, blank=True, help_text="file field → target")
    new_columns = models.JSONField(default=list, blank=True)
    skip_bad_rows = models.BooleanField(default=False)
    replace = models.BooleanField(default=False, help_text="Replace the draft instead of adding.")
    rows_total = models.BigIntegerField(default=0, help_text="An estimate until finished.")
    rows_done = models.BigIntegerField(default=0)
    rows_imported = models.BigIntegerField(default=0)
    rows_failed = models.BigIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="[{line, column, problem}]")
    error_count = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"import {self.file_name} into {self.evalset_id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {ImportStatus.COMPLETED, ImportStatus.FAILED}

    @property
    def report_head(self) -> list[dict]:
        """The first 20 problems, in the reader's language (`items.problems`)."""
        from .items.problems import report_rows

        return report_rows(self.errors, 20)

    @property
    def message_shown(self) -> str:
        """`message` in the reader's language when stored with its message id (`items.problems`),
        else the stored text."""
        from .items.problems import message_text

        return message_text(self.message, self.message_params)

    @property
    def percent(self) -> int:
        if self.status == ImportStatus.COMPLETED:
            return 100
        if not self.rows_total:
            return 0
        return min(99, int(100 * self.rows_done / self.rows_total))


class ItemQuerySet(models.QuerySet):
    def of_version(self, version) -> ItemQuerySet:
        """The rows of one version, through the (evalset, version, position) index: the set's
        id leads that index, so a filter on the version alone scans every row of every set."""
        return self.filter(evalset_id=version.evalset_id, version_id=version.pk)


class EvalSetItem(models.Model):
    """One row. `item_id` is stable: a version's copy of a draft row keeps it."""

    evalset = models.ForeignKey(
        EvalSet, on_delete=models.CASCADE, related_name="items", db_index=False
    )
    version = models.ForeignKey(
        EvalSetVersion,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="items",
        db_index=False,  # covered by the (evalset, version, position) index
    )
    import_job = models.ForeignKey(
        EvalSetImport, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    item_id = models.UUIDField(db_index=True)
    position = models.BigIntegerField(default=0)
    data = models.JSONField(default=dict, encoder=UnicodeJSONEncoder)
    tags = models.JSONField(default=list, blank=True, encoder=UnicodeJSONEncoder)
    human_verdict = models.CharField(max_length=8, choices=Verdict.choices, blank=True)
    label = models.TextField(blank=True)
    search_text = models.TextField(blank=True, help_text="Text of the cells, for search.")
    # Where the row came from, e.g. {"kind": "span", "trace_id", "span_id"} for a row made from
    # a production trace (`traces.services.to_evalset`); a version's copy keeps it.
    source = models.JSONField(null=True, blank=True, encoder=UnicodeJSONEncoder)

    objects = ItemQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["evalset", "version", "position"], name="evalset_item_order")
        ]
        ordering = ["position", "id"]

    def __str__(self) -> str:
        return f"item {self.item_id}"

    @property
    def row_number(self) -> int:
        """Position + 1: a version numbers its rows 0…n-1 at commit, so this has no gaps."""
        return self.position + 1


def draft_filter() -> Q:
    """Items of a draft: no version, and not staged by an import that has not completed."""
    return Q(version__isnull=True) & (
        Q(import_job__isnull=True) | Q(import_job__status=ImportStatus.COMPLETED)
    )
