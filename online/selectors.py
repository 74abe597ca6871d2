"""Reads of online evaluation, scoped to a workspace."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from assay.models import Workspace

from .models import OnlineRule, RuleEvaluator


def online_rules_list(*, workspace: Workspace) -> QuerySet[OnlineRule]:
    """The workspace's rules by name, with their evaluator versions."""
    evaluators = RuleEvaluator.objects.select_related("evaluator_version__evaluator")
    return OnlineRule.objects.filter(workspace=workspace).prefetch_related(
        Prefetch("evaluators", queryset=evaluators)
    )
