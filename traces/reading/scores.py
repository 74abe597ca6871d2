"""Scores other apps keep on traces: for the traces list's "score" filter, and on the spans
the API answers with.

traces imports nothing above it, yet online evaluation's outcomes belong in its filters and on
its spans; so an app that scores traces registers here from its `AppConfig.ready()`:

- a score source: given the workspace, a verdict (or None: any score) and optionally one of
  its own rules' public ids, it answers a query of the trace ids it scored so. The list keeps
  the traces any source names.
- an outcome reader: given the workspace and some trace ids, it answers every outcome it has
  for them, by (trace id, span id) — span id "" for an item that was a whole trace or session —
  in one query whatever the number of traces, so a page of spans costs the same at any size.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db.models import Q, QuerySet

from assay.models import Workspace

from ..models import Span

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


# reader(workspace=, trace_ids=) -> {(trace_id, span_id): [outcome dicts]}
OutcomeReader = Callable[..., dict]
_READERS: list[OutcomeReader] = []


def outcome_reader_register(reader: OutcomeReader) -> None:
    """Add a reader of outcomes on spans (once, however often the app is made ready)."""
    if reader not in _READERS:
        _READERS.append(reader)


def trace_outcomes_read(*, workspace: Workspace, trace_ids) -> dict[tuple[str, str], list]:
    """Every reader's outcomes for the workspace's traces `trace_ids`, by (trace id, span id)."""
    found: dict[tuple[str, str], list] = {}
    wanted = sorted(set(trace_ids))
    for reader in _READERS if wanted else ():
        for key, outcomes in reader(workspace=workspace, trace_ids=wanted).items():
            found.setdefault(key, []).extend(outcomes)
    return found


def spans_outcomes_attach(*, workspace: Workspace, spans: list[Span]) -> dict:
    """Set `online_outcomes` on each span (its own outcomes, [] for none); the outcomes found,
    for the items that were whole traces (span id "")."""
    found = trace_outcomes_read(workspace=workspace, trace_ids=[s.trace_id for s in spans])
    for span in spans:
        span.online_outcomes = found.get((span.trace_id, span.span_id), [])
    return found
