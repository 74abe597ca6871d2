"""What every kind of run stores: the states, and abstract bases with the fields the machine
reads and writes (status and its times, totals and done counters, the retry round, the cancel
flag, the heartbeat; a chunk's lease). A kind's models derive from them and add their own
fields (what the run is of, what a chunk's range is)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class RunStatus(models.TextChoices):
    """See experiments.runs.lifecycle for the moves between them."""

    DRAFT = "draft", _("draft")
    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    COMPLETED = "completed", _("completed")
    FAILED = "failed", _("failed")
    CANCELLED = "cancelled", _("cancelled")


class ChunkStatus(models.TextChoices):
    """See experiments.runs.lifecycle for the moves between them."""

    WAITING = "waiting", _("waiting for its target chunk")
    PENDING = "pending", _("pending")
    QUEUED = "queued", _("queued")
    RUNNING = "running", _("running")
    DONE = "done", _("done")
    FAILED = "failed", _("failed")


ACTIVE_STATUSES = (RunStatus.QUEUED, RunStatus.RUNNING)


class RunBase(models.Model):
    """A run of any kind: its states and counters (a concrete run adds its workspace, what it
    runs on and its own numbers)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=160)
    description = models.TextField(blank=True)
    concurrency = models.PositiveSmallIntegerField(default=8)
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.DRAFT)
    items_total = models.PositiveIntegerField(default=0)
    results_total = models.PositiveIntegerField(default=0)
    results_done = models.PositiveIntegerField(default=0)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    retry_round = models.PositiveSmallIntegerField(default=0)
    cancel_requested = models.BooleanField(default=False)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    error_message = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    queued_at = models.DateTimeField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.name

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_STATUSES


class ChunkBase(models.Model):
    """A chunk of any kind of run: the unit a task claims, under a lease (a concrete chunk
    adds its run and its range)."""

    index = models.PositiveIntegerField()
    status = models.CharField(
        max_length=8, choices=ChunkStatus.choices, default=ChunkStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    queued_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    lease_token = models.UUIDField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        abstract = True
