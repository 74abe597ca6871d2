"""Reads of evaluation sets, always scoped to one workspace."""

from __future__ import annotations

import json

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.selectors import library_version_get, public_or_404

from .items.media import with_urls
from .models import EvalSet, EvalSetImport, EvalSetItem, EvalSetVersion, draft_filter

DEBUG_ROWS_CAP = 10


def evalset_list(*, workspace: Workspace, search: str = "", tag: str = "") -> QuerySet[EvalSet]:
    """Live sets of the workspace, newest change first."""
    qs = EvalSet.objects.filter(workspace=workspace, deleted_at__isnull=True)
    if search:
        qs = qs.filter(Q(name__icontains=search) | Q(description__icontains=search))
    if tag:
        ids = [pk for pk, tags in qs.values_list("pk", "tags") if tag in (tags or [])]
        qs = qs.filter(pk__in=ids)
    draft_rows = (
        EvalSetItem.objects.filter(draft_filter(), evalset=OuterRef("pk"))
        .order_by()
        .values("evalset")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        qs.select_related("created_by")
        .prefetch_related("versions")
        .annotate(draft_rows=Coalesce(Subquery(draft_rows), 0))
        .order_by("-updated_at", "pk")
    )


def evalset_get(*, workspace: Workspace, public_id, include_deleted: bool = False) -> EvalSet:
    """One set of the workspace, or 404 (also for malformed ids and other workspaces)."""
    qs = EvalSet.objects.filter(workspace=workspace)
    if not include_deleted:
        qs = qs.filter(deleted_at__isnull=True)
    return public_or_404(qs, public_id, "evaluation set")


def draft_count(evalset: EvalSet) -> int:
    return EvalSetItem.objects.filter(draft_filter(), evalset=evalset).count()


def latest_version(evalset: EvalSet) -> EvalSetVersion | None:
    return evalset.latest_version


def version_ref(*, evalset: EvalSet, ref: str | None) -> EvalSetVersion | None:
    """'draft' (or nothing) → None; a version string → that version, or 404."""
    if not ref or ref == "draft":
        return None
    return library_version_get(item=evalset, version=ref)


def items_list(
    *,
    evalset: EvalSet,
    version: EvalSetVersion | None = None,
    tag: str = "",
    search: str = "",
) -> QuerySet[EvalSetItem]:
    """Rows of the draft (version None) or of a version, filtered by tag and text."""
    qs = EvalSetItem.objects.filter(evalset=evalset)
    qs = qs.filter(version=version) if version is not None else qs.filter(draft_filter())
    if tag:
        # Tags are stored as a JSON list; the quoted tag is a substring of exactly those lists
        # that hold it, on SQLite and PostgreSQL alike.
        qs = qs.filter(tags__icontains=json.dumps(tag, ensure_ascii=False))
    if search:
        qs = qs.filter(search_text__icontains=search)
    return qs.order_by("position", "id")


def item_get(*, evalset: EvalSet, item_id, version: EvalSetVersion | None = None) -> EvalSetItem:
    return public_or_404(
        items_list(evalset=evalset, version=version), item_id, "item", field="item_id"
    )


def item_page(*, evalset: EvalSet, version: EvalSetVersion | None, item_id, per_page: int) -> int:
    """The 1-based page of the unfiltered rows table that shows this item (404 if absent)."""
    item = item_get(evalset=evalset, version=version, item_id=item_id)
    before = items_list(evalset=evalset, version=version).filter(
        Q(position__lt=item.position) | Q(position=item.position, id__lt=item.pk)
    )
    return before.count() // per_page + 1


def item_tags(*, evalset: EvalSet, version: EvalSetVersion | None = None, scan: int = 5000):
    """Tags seen in the first rows, for the filter select (a full scan would not scale)."""
    rows = items_list(evalset=evalset, version=version).values_list("tags", flat=True)[:scan]
    return sorted({t for tags in rows for t in (tags or [])})


def import_get(*, evalset: EvalSet, public_id) -> EvalSetImport:
    return public_or_404(evalset.imports.all(), public_id, "import")


def version_by_id(*, evalset: EvalSet, public_id) -> EvalSetVersion:
    """One version of the set by public id (404 otherwise, for an outsider's id too)."""
    return public_or_404(evalset.versions.all(), public_id, "version")


def imports_recent(*, evalset: EvalSet, limit: int = 10) -> list[EvalSetImport]:
    return list(evalset.imports.select_related("created_by")[:limit])


def item_turn(item: EvalSetItem, workspace: Workspace) -> dict:
    """An item as the debug runner and experiments take it: ids, data with URLs, tags."""
    return {
        "item_id": str(item.item_id),
        "data": with_urls(item.data, workspace),
        "tags": list(item.tags),
    }


def evalset_rows_for_debug(
    *, workspace: Workspace, evalset_version_or_draft, limit: int = DEBUG_ROWS_CAP
) -> list[dict]:
    """Up to 10 rows of a version (an EvalSetVersion) or of a draft (an EvalSet), as turns.

    Each row is {"item_id", "data": {column: content}, "tags"}; stored media carry the URL
    members read them by. A set or version of another workspace is a 404.
    """
    if isinstance(evalset_version_or_draft, EvalSetVersion):
        evalset, version = evalset_version_or_draft.evalset, evalset_version_or_draft
    else:
        evalset, version = evalset_version_or_draft, None
    if evalset.workspace_id != workspace.pk:
        raise Http404(_("No such evaluation set"))
    limit = max(0, min(int(limit), DEBUG_ROWS_CAP))
    rows = items_list(evalset=evalset, version=version)[:limit]
    return [item_turn(item, workspace) for item in rows]
