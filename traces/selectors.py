"""Reads of traces: ingest keys, spans, traces (their summaries) and sessions, scoped to a
workspace. Lists are paged by keyset (`traces.reading.keyset`), never counted whole."""

from __future__ import annotations

import re
from datetime import timedelta

from django.db.models import (
    Count,
    DateTimeField,
    Exists,
    Max,
    Min,
    OuterRef,
    Q,
    QuerySet,
    Sum,
    TextField,
    Value,
)
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce
from django.http import Http404

from assay.models import Workspace
from evalsets.items.cells import CellError
from evalsets.items.conversation import conversation_content

from .models import IngestKey, Span, SpanStatus, TraceSummary
from .reading.keyset import Order, cursor_decode, cursor_encode, page_after
from .reading.scores import scored_traces

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
    "max_tokens": "tokens_total__lte",
    "min_cost": "cost__gte",
    "max_cost": "cost__lte",
}
# The time range presets of the lists: `range` → how far back from now.
TIME_RANGES = {
    "1h": timedelta(hours=1),
    "24h": timedelta(hours=24),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}
SPAN_ORDER = Order("start_time", "span_id")


def spans_filtered(*, workspace: Workspace, filters: dict) -> QuerySet[Span]:
    """The workspace's spans matching every given filter (`EXACT_FILTERS`, `RANGE_FILTERS`,
    `has_error`, and `attribute` as (key, value) on the raw attributes), newest first."""
    spans = Span.objects.filter(workspace=workspace)
    exact = {EXACT_FILTERS[k]: v for k, v in filters.items() if k in EXACT_FILTERS}
    ranges = {RANGE_FILTERS[k]: v for k, v in filters.items() if k in RANGE_FILTERS}
    if "min_tokens" in filters or "max_tokens" in filters:
        spans = spans.alias(
            tokens_total=Coalesce("tokens_in", Value(0)) + Coalesce("tokens_out", Value(0))
        )
    spans = spans.filter(**exact, **ranges)
    if filters.get("has_error") is not None:
        errors = Q(status=SpanStatus.ERROR)
        spans = spans.filter(errors) if filters["has_error"] else spans.exclude(errors)
    if filters.get("attribute"):
        spans = _with_attribute(spans, *filters["attribute"])
    return spans.order_by("-start_time", "-span_id")


def _with_attribute(spans: QuerySet[Span], key: str, value: str) -> QuerySet[Span]:
    # one key as given (a key may hold dots, or even "__"), compared as text
    # cast: SQLite would compare the value as JSON, and find a plain string malformed
    text = Cast(KeyTextTransform(key, "attributes"), output_field=TextField())
    return spans.alias(attribute=text).filter(attribute=value)


def spans_page(*, workspace: Workspace, filters: dict, cursor: str | None, size: int):
    """A page of `spans_filtered`, newest first, and the next page's cursor."""
    spans = spans_filtered(workspace=workspace, filters=filters)
    return page_after(spans, order=SPAN_ORDER, cursor=cursor, size=size)


# A trace filter → its lookup on the summary (`TraceSummary`).
TRACE_EXACT_FILTERS = {
    "trace_id": "trace_id",
    "service": "service",
    "name": "root_name",
    "environment": "environment",
    "session": "session_id",
    "user": "user_id",
}
# the summary has the span's range columns under the same names (its sums, its first start)
TRACE_RANGE_FILTERS = RANGE_FILTERS
# `sort` → the summary column (each has its index with the trace id); "-x" is descending.
TRACE_SORTS = {
    "start": "start_time",
    "duration": "duration_ms",
    "tokens": "tokens_total",
    "cost": "cost",
    "spans": "span_count",
}
# With an attribute filter a page looks at most this many traces (in the sort order) for
# spans that have it, so a rare value costs a bounded scan; the page says when it stopped.
ATTRIBUTE_SCAN = 1000


def trace_order(sort: str) -> Order:
    """The keyset order of a `sort` value ("-start" when empty or unknown)."""
    name = (sort or "-start").lstrip("-")
    return Order(TRACE_SORTS.get(name, "start_time"), "trace_id", sort.startswith("-") or not sort)


def traces_filtered(*, workspace: Workspace, filters: dict) -> QuerySet[TraceSummary]:
    """The workspace's trace summaries matching every filter except `attribute`: the typed
    ones on the summary, `kind` and `model` among those its spans had, `status` and
    `has_error` by its error count."""
    traces = TraceSummary.objects.filter(workspace=workspace)
    exact = {TRACE_EXACT_FILTERS[k]: v for k, v in filters.items() if k in TRACE_EXACT_FILTERS}
    ranges = {TRACE_RANGE_FILTERS[k]: v for k, v in filters.items() if k in TRACE_RANGE_FILTERS}
    traces = traces.filter(**exact, **ranges)
    if filters.get("kind"):
        traces = traces.filter(kinds_seen__contains=f"|{filters['kind']}|")
    if filters.get("model"):
        traces = traces.filter(models_seen__contains=f"|{filters['model']}|")
    errors = filters.get("has_error")
    if errors is None and filters.get("status"):
        errors = filters["status"] == SpanStatus.ERROR
    if errors is not None:
        traces = traces.filter(error_count__gt=0) if errors else traces.filter(error_count=0)
    if filters.get("score"):
        traces = traces.filter(
            scored_traces(workspace=workspace, score=filters["score"], rule=filters.get("rule"))
        )
    return traces


def traces_page(
    *, workspace: Workspace, filters: dict, sort: str = "", cursor: str | None, size: int
) -> tuple[list[TraceSummary], str | None]:
    """A page of the filtered traces in the `sort` order and the next page's cursor. An
    attribute filter looks at the next ATTRIBUTE_SCAN traces only: a page may then come back
    short, or empty, with a cursor to look further."""
    order, traces = trace_order(sort), traces_filtered(workspace=workspace, filters=filters)
    if not filters.get("attribute"):
        return page_after(traces, order=order, cursor=cursor, size=size)
    if cursor:
        traces = traces.filter(order.after(*cursor_decode(cursor, order, TraceSummary)))
    scanned = traces.order_by(*order.order_by())
    key, value = filters["attribute"]
    spans = _with_attribute(
        Span.objects.filter(
            workspace=workspace,
            trace_id=OuterRef("trace_id"),
            start_time__gte=OuterRef("start_time"),
            start_time__lte=OuterRef("end_time"),
        ),
        key,
        value,
    )
    candidates = TraceSummary.objects.filter(pk__in=scanned.values("pk")[:ATTRIBUTE_SCAN])
    found, following = page_after(
        candidates.filter(Exists(spans)), order=order, cursor=None, size=size
    )
    if following is None:  # fewer than a page among these: look on after the last one read
        last = scanned[ATTRIBUTE_SCAN - 1 : ATTRIBUTE_SCAN]
        following = next((cursor_encode(row, order) for row in last), None)
    return found, following


def traces_count_bounded(*, workspace: Workspace, filters: dict, limit: int = 1000) -> int:
    """How many traces match, counted up to `limit` (a page says "1,000+" beyond it)."""
    traces = traces_filtered(workspace=workspace, filters=filters)
    return traces[: limit + 1].count()


# ----------------------------------------------------------------------------- sessions

SESSION_ORDER = Order("last_start", "session_id", value_field=DateTimeField())
SESSION_FILTERS = {
    "since": "start_time__gte",
    "until": "start_time__lt",
    "user": "user_id",
    "service": "service",
    "environment": "environment",
}
SESSION_TRACES_SHOWN = 200
SESSION_STEP = Order("start_time", "trace_id")
SESSION_WALK = 500  # traces read a step while looking for a page of sessions
SESSION_WALK_ROUNDS = 40  # at most 20,000 traces a page: a page may come back short


def sessions_page(*, workspace: Workspace, filters: dict, cursor: str | None, size: int):
    """Sessions (traces sharing a session id, which GenAI's `gen_ai.conversation.id` and
    OpenInference's `session.id` fill) with a trace in the filters' range, the most recently
    active first: their trace count, first and last start, spans, errors, tokens and cost over
    those traces, and the next page's cursor.

    Not a GROUP BY over the range (its cost would grow with the range's traces): the traces
    are walked newest first by the start index, SESSION_WALK at a time, and a session is met
    first at its last trace, so sessions come in their order; only the page's sessions are
    then summed, by the session index. A session met again lower down was on an earlier page."""
    lookups = {SESSION_FILTERS[k]: v for k, v in filters.items() if k in SESSION_FILTERS}
    traces = TraceSummary.objects.filter(workspace=workspace, **lookups).exclude(session_id="")
    after = cursor_decode(cursor, SESSION_ORDER, TraceSummary) if cursor else None
    walk = traces.filter(start_time__lte=after[0]) if after else traces
    found: list[dict] = []
    seen: set[str] = set()
    position = None
    for _ in range(SESSION_WALK_ROUNDS):
        step = walk.filter(SESSION_STEP.after(*position)) if position else walk
        batch = list(
            step.order_by(*SESSION_STEP.order_by()).values_list(
                "start_time", "trace_id", "session_id"
            )[:SESSION_WALK]
        )
        met = [sid for _start, _trace, sid in batch if sid not in seen]
        seen.update(met)
        found += [row for row in _sessions_summed(traces, met) if _is_after(row, after)]
        if len(found) > size or len(batch) < SESSION_WALK:
            break
        position = batch[-1][:2]
    found.sort(key=lambda row: (row["last_start"], row["session_id"]), reverse=True)
    if len(found) > size:
        return found[:size], cursor_encode(found[size - 1], SESSION_ORDER)
    if len(batch) == SESSION_WALK:  # the walk stopped before the range's end: look on
        return found, cursor_encode({"last_start": batch[-1][0], "session_id": ""}, SESSION_ORDER)
    return found, None


def _sessions_summed(traces: QuerySet[TraceSummary], session_ids: list[str]) -> list[dict]:
    if not session_ids:
        return []
    return list(
        traces.filter(session_id__in=session_ids)
        .values("session_id")
        .annotate(
            last_start=Max("start_time"),
            first_start=Min("start_time"),
            traces=Count("id"),
            spans=Sum("span_count"),
            errors=Sum("error_count"),
            tokens=Sum("tokens_total"),
            cost=Sum("cost"),
            user_id=Max("user_id"),
        )
        .order_by()
    )


def _is_after(row: dict, after: tuple | None) -> bool:
    """Whether a session comes after the cursor (one that does not was on an earlier page)."""
    if after is None:
        return True
    return (row["last_start"], row["session_id"]) < (after[0], after[1])


def session_traces(*, workspace: Workspace, session_id: str) -> list[TraceSummary]:
    """A session's traces in start order (its first SESSION_TRACES_SHOWN); Http404 when the
    workspace has none."""
    traces = list(
        TraceSummary.objects.filter(workspace=workspace, session_id=session_id).order_by(
            "start_time", "trace_id"
        )[:SESSION_TRACES_SHOWN]
    )
    if not session_id or not traces:
        raise Http404
    return traces


def session_turns(*, workspace: Workspace, traces: list[TraceSummary]) -> list[dict]:
    """Each trace of a session as a turn of its chat: {"trace", "input", "output", "chat"}:
    the user's input and the assistant's output are the root span's, else the first span's
    input and the last span's output that have one (`chat`: both as Conversation content)."""
    spans = (
        Span.objects.filter(
            workspace=workspace,
            trace_id__in=[t.trace_id for t in traces],
            start_time__gte=min(t.start_time for t in traces),
            start_time__lte=max(t.end_time for t in traces),
        )
        .only("trace_id", "parent_span_id", "start_time", "input_text", "output_text")
        .order_by("start_time", "span_id")
    )
    by_trace: dict[str, list[Span]] = {}
    for span in spans:
        by_trace.setdefault(span.trace_id, []).append(span)
    return [_turn(trace, by_trace.get(trace.trace_id, [])) for trace in traces]


def _turn(trace: TraceSummary, spans: list[Span]) -> dict:
    root = next((s for s in spans if not s.parent_span_id), None)
    said = (root and root.input_text) or next((s.input_text for s in spans if s.input_text), "")
    answered = (root and root.output_text) or next(
        (s.output_text for s in reversed(spans) if s.output_text), ""
    )
    messages = [{"role": "user", "content": said}] if said else []
    messages += [{"role": "assistant", "content": answered}] if answered else []
    try:
        chat = conversation_content(messages) if messages else None
    except CellError:  # a text longer than a conversation holds: shown as plain text
        chat = None
    return {"trace": trace, "input": said, "output": answered, "chat": chat}


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
