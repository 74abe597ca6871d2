"""Abstract model bases shared by the apps: immutable rows (submitted versions), soft delete,
the library item (evaluators, evaluation sets), authored and workspace-named rows, an uploaded
file's import job, a hashed key; and the migrations' PostgreSQL-only SQL."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, migrations, models, transaction
from django.db.models import Q
from django.utils import timezone


class ImmutableVersionError(Exception):
    """Raised by every path that would change or remove a submitted version."""


class ImmutableQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise ImmutableVersionError(f"{self.model._meta.verbose_name} rows are immutable.")

    def delete(self):
        raise ImmutableVersionError(f"{self.model._meta.verbose_name} rows cannot be deleted.")


class ImmutableModel(models.Model):
    """Inserted once, then read-only."""

    objects = ImmutableQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.pk is not None or not self._state.adding:
            raise ImmutableVersionError(f"{self._meta.verbose_name} rows are immutable.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ImmutableVersionError(f"{self._meta.verbose_name} rows cannot be deleted.")


class SoftDeleteModel(models.Model):
    """Hidden from lists when deleted, still readable where experiments pin it; restorable."""

    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    def mark_deleted(self, *, deleted: bool) -> bool:
        """Set or clear the deletion time; False when it already was that way."""
        if self.is_deleted == deleted:
            return False
        self.deleted_at = timezone.now() if deleted else None
        return True


class Authored(models.Model):
    """Who created a row, and when it was created and last changed."""

    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class WorkspaceNamed(Authored):
    """A workspace's named setting that is not versioned (review score configs and queues,
    online rules, experiment templates); each names its own name's unique constraint."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey("assay.Workspace", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=160)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.name


class LibraryItem(SoftDeleteModel, Authored):
    """What a workspace keeps in its library and versions: a named, tagged draft whose
    submitted versions (`versions`, SemVer) experiments pin. Names are unique among live ones."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(
        "assay.Workspace", on_delete=models.CASCADE, related_name="%(class)ss"
    )
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    tags = models.JSONField(default=list, blank=True)

    class Meta:
        abstract = True
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "name"],
                condition=Q(deleted_at__isnull=True),
                name="unique_live_%(class)s_name",
            )
        ]
        indexes = [models.Index(fields=["workspace", "-updated_at"])]
        ordering = ["-updated_at"]

    def __str__(self) -> str:
        return self.name

    def save_named(self, *, taken: str, **kwargs) -> None:
        """Save; when a live item already has the name, raise ValidationError({"name": taken})
        and save nothing."""
        try:
            with transaction.atomic():
                self.save(**kwargs)
        except IntegrityError:
            raise ValidationError({"name": taken}) from None

    @property
    def latest_version(self):
        """The highest SemVer (not the newest row); uses prefetched versions when present."""
        from assay.semver import sort_key

        versions = list(self.versions.all())
        return max(versions, key=lambda v: sort_key(v.version)) if versions else None


class UploadJob(models.Model):
    """A file a user uploaded for a worker to import (an evaluation set's rows, a garak report):
    who sent it and when, the file's name and size, when the worker started and finished, and
    the message the import ends with. Each kind adds its status, file path and progress."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey("assay.Workspace", on_delete=models.CASCADE, related_name="+")
    file_name = models.CharField(max_length=255)
    file_size = models.BigIntegerField(default=0)
    message = models.TextField(blank=True)
    message_params = models.JSONField(
        null=True,
        blank=True,
        help_text="The message's {msgid, params[, plural, n]}, to translate it when read; "
        "null when stored as text only.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class HashedKey(models.Model):
    """A revocable secret key of which only the SHA-256 is stored (`assay.safety.crypto`): API
    tokens and trace ingest keys. Subclasses add whose key it is."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=120)
    prefix = models.CharField(max_length=16)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class PostgreSQLOnly(migrations.RunSQL):
    """RunSQL on PostgreSQL only (trigram indexes: SQLite has none, and gets nothing)."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
