"""Scores other apps keep on traces, for the traces list's "score" filter.

traces imports nothing above it, yet online evaluation's outcomes belong in its filters; so an
app that scores traces registers a source here from its `AppConfig.ready()`: given the
workspace, a verdict (or None: any score) and optionally one of its own rules' public ids, it
answers a query of the trace ids it scored so. The list keeps the traces any source names.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import Q, QuerySet

from assay.models import Workspace

# source(workspace=, verdict=, rule=) -> a values("trace_id") queryset
Source = Callable[..., QuerySet]
_SOURCES: list[Source] = []
SCORE_FILTERS = ("scored", "pass", "fail", "unknown")


def score_source_register(source: Source) -> None:
    """Add a source of scores (once, however often the app is made ready)."""
    if source not in _SOURCES:
        _SOURCES.append(source)


def scored_traces(*, workspace: Workspace, score: str, rule=None) -> Q:
    """Traces with a score (`scored`) or a verdict of `score`, by any source (or by `rule`)."""
    verdict = None if score == "scored" else score
    found = Q(pk__in=[])
    for source in _SOURCES:
        found |= Q(trace_id__in=source(workspace=workspace, verdict=verdict, rule=rule))
    return found
