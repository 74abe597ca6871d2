"""Reads of traces: ingest keys, scoped to a workspace."""

from __future__ import annotations

from django.db.models import QuerySet

from assay.models import Workspace

from .models import IngestKey


def ingest_keys_list(*, workspace: Workspace) -> QuerySet[IngestKey]:
    """The workspace's ingest keys, newest first (revoked ones too: they say when)."""
    return IngestKey.objects.filter(workspace=workspace).select_related("created_by")
