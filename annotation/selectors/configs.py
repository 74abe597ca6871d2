"""Reads of the score config pages: the workspace's configs with how much they are used."""

from __future__ import annotations

from django.db.models import Count, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce

from assay.models import Workspace

from ..models import Label, ScoreConfig


def score_configs_with_use(*, workspace: Workspace) -> QuerySet[ScoreConfig]:
    """The workspace's configs by name, each with `queue_count` (queues asking for it) and
    `label_count` (labels given with it), which decide what may still change."""
    labels = (
        Label.objects.filter(score_config=OuterRef("pk"))
        .order_by()
        .values("score_config")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        ScoreConfig.objects.filter(workspace=workspace)
        .annotate(
            queue_count=Count("queues", distinct=True),
            label_count=Coalesce(Subquery(labels, output_field=IntegerField()), 0),
        )
        .order_by("name")
    )


def score_config_with_use(*, workspace: Workspace, public_id) -> ScoreConfig | None:
    """One config of the workspace with its use (None: not the workspace's, or no such id)."""
    return score_configs_with_use(workspace=workspace).filter(public_id=public_id).first()
