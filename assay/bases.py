"""Abstract model bases shared by the apps: immutable rows (submitted versions) and soft delete
(evaluators, evaluation sets)."""

from __future__ import annotations

from django.db import models
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
