"""The workspace's garak references and garak imports."""

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


def garak_imports(*, workspace: Workspace):
    """The workspace's garak import jobs, newest first."""
    from ..models import GarakImport

    return GarakImport.objects.filter(workspace=workspace)


def garak_import_get(*, workspace: Workspace, public_id):
    """One of the workspace's garak imports by public id; 404 otherwise (an outsider's id
    looks the same as a missing one)."""
    from assay.selectors import public_or_404

    return public_or_404(garak_imports(workspace=workspace), public_id, "garak import")
