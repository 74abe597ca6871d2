"""Reads of evaluators, always scoped to one workspace."""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet
from django.http import Http404

from assay.models import Workspace
from assay.selectors import public_or_404

from .models import Evaluator, EvaluatorTemplate

SORTS = {
    "updated": "-updated_at",
    "-updated": "updated_at",
    "name": "name",
    "-name": "-name",
    "created": "-created_at",
    "-created": "created_at",
}


def evaluator_list(
    *,
    workspace: Workspace,
    search: str = "",
    kind: str = "",
    tag: str = "",
    creator: str = "",
    sort: str = "updated",
    deleted: bool = False,
) -> QuerySet[Evaluator]:
    """Evaluators of the workspace with the list page's filters; deleted ones only on request."""
    qs = Evaluator.objects.filter(workspace=workspace, deleted_at__isnull=not deleted)
    if search:
        qs = qs.filter(Q(name__icontains=search) | Q(description__icontains=search))
    if kind:
        qs = qs.filter(kind=kind)
    if creator:
        qs = qs.filter(created_by__username=creator)
    if tag:
        # JSON containment is not portable to SQLite; tags are few, so filter ids in Python.
        ids = [pk for pk, tags in qs.values_list("pk", "tags") if tag in (tags or [])]
        qs = qs.filter(pk__in=ids)
    qs = qs.select_related("created_by", "updated_by").prefetch_related("versions")
    qs = qs.annotate(version_count=Count("versions"))
    return qs.order_by(SORTS.get(sort, "-updated_at"), "pk")


def evaluator_get(*, workspace: Workspace, public_id, include_deleted: bool = True) -> Evaluator:
    """One evaluator of the workspace, or 404 (also for malformed ids and other workspaces)."""
    qs = Evaluator.objects.filter(workspace=workspace)
    if not include_deleted:
        qs = qs.filter(deleted_at__isnull=True)
    return public_or_404(qs, public_id, "evaluator")


def workspace_tags(*, workspace: Workspace) -> list[str]:
    tags = Evaluator.objects.filter(workspace=workspace, deleted_at__isnull=True)
    return sorted({t for row in tags.values_list("tags", flat=True) for t in (row or [])})


def workspace_creators(*, workspace: Workspace) -> list[str]:
    rows = Evaluator.objects.filter(workspace=workspace, created_by__isnull=False)
    return sorted(set(rows.values_list("created_by__username", flat=True)))


def template_list(*, kind: str = "") -> QuerySet[EvaluatorTemplate]:
    qs = EvaluatorTemplate.objects.all()
    return qs.filter(kind=kind) if kind else qs


def template_get(*, slug: str) -> EvaluatorTemplate:
    template = EvaluatorTemplate.objects.filter(slug=slug).first()
    if template is None:
        raise Http404(f"No template {slug!r}")
    return template


def evaluator_snapshot(*, evaluator: Evaluator, ref: str) -> dict:
    """The fields that decide results (score meaning, default policy, config) of the version
    `ref`, or of the draft for "draft"; 404 for a version the evaluator does not have."""
    from assay.selectors import library_version_get

    if ref == "draft":
        return {
            "score_meaning": evaluator.score_meaning,
            "default_policy": evaluator.default_policy,
            "config": evaluator.draft_config,
        }
    version = library_version_get(item=evaluator, version=ref)
    return {
        "score_meaning": version.score_meaning,
        "default_policy": version.default_policy,
        "config": version.config,
    }
