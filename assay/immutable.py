"""Immutability for submitted versions (evaluator versions, evalset versions): no update path
through save(), queryset update()/delete() or delete() — experiments pin these rows."""

from __future__ import annotations

from django.db import models


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
