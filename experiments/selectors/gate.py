"""Reads of the CI gate's recorded checks (their reasons, worded for the reader:
`results.gate.decision_reasons`)."""

from __future__ import annotations

from django.db.models import QuerySet

from ..models import Experiment, GateDecision


def gate_decisions(*, experiment: Experiment) -> QuerySet[GateDecision]:
    """The gate's recorded checks of this run as the candidate, newest first, with each one's
    baseline and who posted it (one per baseline and options: posting again updates it)."""
    decisions = GateDecision.objects.filter(workspace=experiment.workspace, candidate=experiment)
    return decisions.select_related("baseline", "decided_by").order_by("-decided_at", "-pk")
