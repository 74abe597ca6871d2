"""Reads of traces: ingest keys, spans and traces, scoped to a workspace."""

from __future__ import annotations

import re

from django.db.models import (
    Count,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    TextField,
    Value,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce
from django.http import Http404

from assay.models import Workspace

from .models import IngestKey, Span, SpanStatus

HEX_TRACE_ID = re.compile(r"[0-9a-fA-F]{32}")


def ingest_keys_list(*, workspace: Workspace) -> QuerySet[IngestKey]:
    """The workspace's ingest keys, newest first (revoked ones too: they say when)."""
    return IngestKey.objects.filter(workspace=workspace).select_related("created_by")


# ----------------------------------------------------------------------------- spans, traces

# A filter → the span lookup it is (exact matches on typed columns).
EXACT_FILTERS = {
    "trace_id": "trace_id",
    "service": "service",
    "name": "name",
    "kind": "kind",
    "model": "model",
    "environment": "environment",
    "status": "status",
    "session": "session_id",
    "user": "user_id",
}
RANGE_FILTERS = {
    "since": "start_time__gte",
    "until": "start_time__lt",
    "min_duration_ms": "duration_ms__gte",
    "max_duration_ms": "duration_ms__lte",
    "min_tokens": "tokens_total__gte",
    "min_cost": "cost__gte",
}


def spans_filtered(*, workspace: Workspace, filters: dict) -> QuerySet[Span]:
    """The workspace's spans matching every given filter (`EXACT_FILTERS`, `RANGE_FILTERS`,
    `has_error`, and `attribute` as (key, value) on the raw attributes), newest first."""
    spans = Span.objects.filter(workspace=workspace)
    exact = {EXACT_FILTERS[k]: v for k, v in filters.items() if k in EXACT_FILTERS}
    ranges = {RANGE_FILTERS[k]: v for k, v in filters.items() if k in RANGE_FILTERS}
    if "min_tokens" in filters:
        spans = spans.alias(
            tokens_total=Coalesce("tokens_in", Value(0)) + Coalesce("tokens_out", Value(0))
        )
    spans = spans.filter(**exact, **ranges)
    if filters.get("has_error") is not None:
        errors = Q(status=SpanStatus.ERROR)
        spans = spans.filter(errors) if filters["has_error"] else spans.exclude(errors)
    if filters.get("attribute"):
        key, value = filters["attribute"]
        # one key as given (a key may hold dots, or even "__"), compared as text
        # cast: SQLite would compare the value as JSON, and find a plain string malformed
        text = Cast(KeyTextTransform(key, "attributes"), output_field=TextField())
        spans = spans.alias(attribute=text).filter(attribute=value)
    return spans.order_by("-start_time", "span_id")


def traces_list(*, workspace: Workspace, filters: dict) -> QuerySet:
    """One row per trace with a span matching the filters: its first start, last end, span
    count, errors, tokens and cost over all its spans, and its root span's name (empty while
    the root has not arrived), newest first."""
    matching = spans_filtered(workspace=workspace, filters=filters).values("trace_id")
    roots = Span.objects.filter(
        workspace=workspace, trace_id=OuterRef("trace_id"), parent_span_id=""
    ).order_by("start_time")
    return (
        Span.objects.filter(workspace=workspace, trace_id__in=matching)
        .values("trace_id")
        .annotate(
            start_time=Min("start_time"),
            end_time=Max("end_time"),
            spans=Count("id"),
            errors=Count("id", filter=Q(status=SpanStatus.ERROR)),
            tokens_in=Sum("tokens_in"),
            tokens_out=Sum("tokens_out"),
            cost=Sum("cost"),
            root_name=Subquery(roots.values("name")[:1]),
            service=Subquery(roots.values("service")[:1]),
            session_id=Max("session_id"),
        )
        .order_by("-start_time", "trace_id")
    )


def trace_spans(*, workspace: Workspace, trace_id: str) -> list[Span]:
    """A trace's spans in start order; Http404 when the workspace has none with that id."""
    if not HEX_TRACE_ID.fullmatch(trace_id or ""):
        raise Http404
    spans = list(
        Span.objects.filter(workspace=workspace, trace_id=trace_id.lower()).order_by(
            "start_time", "span_id"
        )
    )
    if not spans:
        raise Http404
    return spans


def span_tree(spans: list[Span]) -> list[dict]:
    """The spans as a forest: each {"span", "children"}; a span whose parent has not arrived
    (or never will) is a root too, with `parent_missing`."""
    nodes = {span.span_id: {"span": span, "children": []} for span in spans}
    roots = []
    for span in spans:
        parent = nodes.get(span.parent_span_id)
        if parent is not None and parent["span"] is not span:
            parent["children"].append(nodes[span.span_id])
        else:
            nodes[span.span_id]["parent_missing"] = bool(span.parent_span_id)
            roots.append(nodes[span.span_id])
    reached, stack = set(), list(roots)
    while stack:
        node = stack.pop()
        reached.add(node["span"].span_id)
        stack += node["children"]
    # spans that are each other's parents (a broken exporter) reach no root: shown as roots
    return roots + [
        {"span": n["span"], "children": [], "parent_missing": True}
        for key, n in nodes.items()
        if key not in reached
    ]


def span_rows(spans: list[Span]) -> list[dict]:
    """The span tree flattened depth first for a page: each {"span", "depth",
    "parent_missing", "offset_pct", "width_pct"} (the last two place its bar on the trace's
    timeline, from the first start to the last end)."""
    start = min(s.start_time for s in spans)
    total = max((max(s.end_time for s in spans) - start).total_seconds(), 1e-9)
    rows, stack = [], [(node, 0) for node in reversed(span_tree(spans))]
    while stack:
        node, depth = stack.pop()
        span = node["span"]
        offset = (span.start_time - start).total_seconds() / total * 100
        width = max((span.end_time - span.start_time).total_seconds() / total * 100, 0.5)
        rows.append(
            {
                "span": span,
                "depth": min(depth, 12),
                "parent_missing": node.get("parent_missing", False),
                "offset_pct": round(offset, 2),
                "width_pct": round(min(width, 100 - offset), 2),
            }
        )
        stack += [(child, depth + 1) for child in reversed(node["children"])]
    return rows
