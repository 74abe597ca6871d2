"""Reading imports: always inside one workspace."""

from __future__ import annotations

from django.http import Http404

from .models import ImportRun


def imports_list(*, workspace):
    """The workspace's imports, newest first."""
    return ImportRun.objects.filter(workspace=workspace).select_related("created_by")


def import_get(*, workspace, public_id) -> ImportRun:
    """One of the workspace's imports; 404 for another workspace's id."""
    found = imports_list(workspace=workspace).filter(public_id=public_id).first()
    if found is None:
        raise Http404
    return found
