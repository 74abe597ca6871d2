"""The workspace's garak references."""

from __future__ import annotations

from assay.models import Workspace


def garak_reference(*, workspace: Workspace, kind: str) -> dict:
    """The entries of the workspace's newest garak reference of this kind ({} without one)."""
    from ..models import GarakReference

    found = GarakReference.objects.filter(workspace=workspace, kind=kind).first()
    return found.entries if found else {}


def garak_references(*, workspace: Workspace):
    from ..models import GarakReference

    return GarakReference.objects.filter(workspace=workspace)
