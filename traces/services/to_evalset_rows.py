"""Trace → evalset, the reading half: which spans a selection names, and each future row's
span fields (`to_evalset.SPAN_FIELDS`) with a link back to where it came from.

Reads are scoped to the workspace here (not in `traces.selectors`, whose list queries this
reuses): a span id or trace id of another workspace selects nothing.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from assay.safety.caps import cap_text
from evalsets.items.cells import TEXT_CELL_CAP

from ..models import Span, SpanKind, SpanStatus
from ..selectors import traces_page

HEX_TRACE = re.compile(r"[0-9a-f]{32}")
HEX_SPAN = re.compile(r"[0-9a-f]{16}")
TEXT_CAP = TEXT_CELL_CAP - 64  # room for cap_text's "… truncated N bytes"
STEP_CAP = 2048  # bytes of a tool call's arguments or output in a trajectory step
MAX_STEPS = 100
MAX_TRACES = 500  # traces (or sessions) a call may turn into rows
MAX_IDS = 2000  # ids a selection may list


@dataclass
class Source:
    """One future row: its span fields, its link back (`EvalSetItem.source`), and the trace or
    session it counts against the cap."""

    fields: dict
    link: dict
    group: str
    root: Span | None = None  # a session's: its first trace's root (online rules read it)


def selected_sources(*, workspace, selection, row_from: str) -> list[Source]:
    """The rows a selection makes, in the order of their traces (sessions: of their first
    trace). Span ids make one row each; sessions one row each; the rest one per trace's root
    (`root`) or per LLM span (`llm`)."""
    if selection.session_ids:
        return _session_sources(workspace, _ids(selection.session_ids, None))
    if selection.span_ids:
        wanted = set(_ids(selection.span_ids, HEX_SPAN))
        chosen = Span.objects.filter(workspace=workspace, span_id__in=wanted)
        by_trace = _traces(workspace, _capped(chosen.values_list("trace_id", flat=True)))
        return [
            _span_source(span, spans)
            for spans in by_trace.values()
            for span in spans
            if span.span_id in wanted
        ]
    by_trace = _traces(workspace, _capped(_trace_ids(workspace, selection)))
    return [
        _span_source(span, spans) for spans in by_trace.values() for span in _rows(spans, row_from)
    ]


def _ids(values, pattern) -> list[str]:
    """The ids given (malformed ones select nothing); at most MAX_IDS of them."""
    if len(values) > MAX_IDS:
        raise ValidationError(
            {"selection": _("At most %(max)s ids a call.") % {"max": f"{MAX_IDS:,}"}}
        )
    cleaned = [str(v).strip().lower() if pattern else str(v).strip() for v in values]
    return [v for v in cleaned if v and (pattern is None or pattern.fullmatch(v))]


def _capped(groups) -> list[str]:
    """`groups` (trace or session ids) unless there are more than MAX_TRACES of them."""
    groups = list(dict.fromkeys(groups))
    if len(groups) > MAX_TRACES:
        raise ValidationError(
            {
                "selection": _(
                    "More than %(max)s traces or sessions selected; at most %(max)s a call. "
                    "Narrow the filter, or send them in parts."
                )
                % {"max": MAX_TRACES}
            }
        )
    return groups


def _trace_ids(workspace, selection) -> list[str]:
    if selection.trace_ids:
        return _ids(selection.trace_ids, HEX_TRACE)
    # the trace list's own query (so "all that match" is what the list shows), one more than
    # the cap, so "too many" is told without reading them all
    found, _following = traces_page(
        workspace=workspace, filters=selection.filters or {}, cursor=None, size=MAX_TRACES + 1
    )
    return [trace.trace_id for trace in found]


def _traces(workspace, trace_ids) -> dict[str, list[Span]]:
    """Each trace's spans in start order, traces in the order of their first span."""
    by_trace: dict[str, list[Span]] = defaultdict(list)
    spans = Span.objects.filter(workspace=workspace, trace_id__in=list(trace_ids))
    for span in spans.order_by("start_time", "span_id"):
        by_trace[span.trace_id].append(span)
    return dict(by_trace)


def _rows(spans: list[Span], row_from: str) -> list[Span]:
    if row_from == "llm":
        return [s for s in spans if s.kind == SpanKind.LLM]
    present = {s.span_id for s in spans}
    roots = [s for s in spans if not s.parent_span_id or s.parent_span_id not in present]
    return roots[:1]  # the first root: a trace whose root has not arrived has its earliest orphan


def trace_root_fields(spans: list[Span]) -> dict | None:
    """A trace's fields as its root holds them (`span_fields`: input, output and messages fall
    back to the LLM spans under it), from its spans in start order, the earliest orphan
    standing in while the root has not arrived; its trajectory is every tool span of the
    trace (a child whose parent is missing too). None for no spans."""
    roots = _rows(spans, "root")
    if not roots:
        return None
    fields = span_fields(roots[0], _descendants(roots[0], spans))
    return {**fields, "trajectory": _trajectory([s for s in spans if s.kind == SpanKind.TOOL])}


def _descendants(span: Span, spans: list[Span]) -> list[Span]:
    """The spans under `span`, in start order."""
    children = defaultdict(list)
    for s in spans:
        children[s.parent_span_id].append(s)
    found, stack, seen = [], [span.span_id], {span.span_id}
    while stack:
        for child in children.get(stack.pop(), []):
            if child.span_id not in seen:
                seen.add(child.span_id)
                found.append(child)
                stack.append(child.span_id)
    return sorted(found, key=lambda s: (s.start_time, s.span_id))


def _span_source(span: Span, spans: list[Span]) -> Source:
    below = _descendants(span, spans)
    link = {"kind": "span", "trace_id": span.trace_id, "span_id": span.span_id}
    return Source(span_fields(span, below), link, span.trace_id)


def span_fields(span: Span, below: list[Span]) -> dict:
    """A span's fields for rows; input, output and messages fall back to the LLM spans under
    it (an agent's root often has none of its own)."""
    llms = [s for s in below if s.kind == SpanKind.LLM]
    with_messages = [s for s in [span, *reversed(llms)] if s.input_messages or s.output_messages]
    return {
        "input": _text(span.input_text or next((s.input_text for s in llms if s.input_text), "")),
        "output": _text(
            span.output_text or next((s.output_text for s in reversed(llms) if s.output_text), "")
        ),
        "messages": _messages(with_messages[0]) if with_messages else None,
        "input_messages": _messages(with_messages[0], output=False) if with_messages else None,
        "trajectory": _trajectory([s for s in below if s.kind == SpanKind.TOOL]),
        "model": span.model or next((s.model for s in llms if s.model), ""),
        "name": span.name,
        "service": span.service,
        "error": _text(span.error),
        "session_id": span.session_id,
        "user_id": span.user_id,
    }


def _text(value: str) -> str:
    return cap_text(value, TEXT_CAP)


def _messages(span: Span, output: bool = True) -> list[dict] | None:
    messages = list((span.input_messages or {}).get("messages") or [])
    if output:
        messages += (span.output_messages or {}).get("messages") or []
    return messages or None


def _trajectory(tools: list[Span]) -> str:
    """Tool spans as the trajectory Assay's agent evaluators read: {"steps": [{"type":
    "tool_call", "name", "arguments", "output", "status", "error"?}]} (JSON text)."""
    if not tools:
        return ""
    steps = [_step(span) for span in tools[:MAX_STEPS]]
    return json.dumps({"steps": steps}, ensure_ascii=False)


def _step(span: Span) -> dict:
    step = {
        "type": "tool_call",
        "name": (span.attributes or {}).get("gen_ai.tool.name") or span.name,
        "arguments": cap_text(span.input_text, STEP_CAP),
        "output": cap_text(span.output_text, STEP_CAP),
        "status": "error" if span.status == SpanStatus.ERROR else "ok",
    }
    if span.error:
        step["error"] = cap_text(span.error, STEP_CAP)
    return step


def sessions_of(*, workspace, trace_ids: list[str]) -> list[str]:
    """The sessions the given traces belong to (of this workspace's spans only)."""
    spans = Span.objects.filter(workspace=workspace, trace_id__in=_ids(trace_ids, HEX_TRACE))
    sessions = spans.exclude(session_id="").order_by().values_list("session_id", flat=True)
    return list(sessions.distinct()[: MAX_TRACES + 1])


def _session_sources(workspace, session_ids: list[str]) -> list[Source]:
    """One row a session (`session_sources`), at most MAX_TRACES sessions and traces."""
    _capped(session_ids)
    spans = Span.objects.filter(workspace=workspace, session_id__in=session_ids).order_by()
    trace_ids = _capped(spans.values_list("trace_id", flat=True).distinct()[: MAX_TRACES + 1])
    return session_sources(workspace=workspace, session_ids=session_ids, trace_ids=trace_ids)


def session_sources(*, workspace, session_ids: list[str], trace_ids: list[str]) -> list[Source]:
    """Each session's fields from its traces (`trace_ids`, theirs or more; the caller bounds
    them): a Conversation of its traces' turns in order (the system prompt once, then each
    trace's user input and answer), the first input and last output, every tool span as the
    trajectory; linked to the session and its traces. A session none of whose traces is
    stored is left out."""
    by_session: dict[str, list[dict]] = defaultdict(list)
    for trace_id, trace_spans in _traces(workspace, trace_ids).items():
        roots = _rows(trace_spans, "root")
        session = next((s.session_id for s in trace_spans if s.session_id), "")
        if roots and session in session_ids:
            below = _descendants(roots[0], trace_spans)
            by_session[session].append(
                {
                    "trace_id": trace_id,
                    "root": roots[0],
                    "fields": span_fields(roots[0], below),
                    "below": below,
                }
            )
    return [_session_source(session, turns) for session, turns in by_session.items()]


def _session_source(session: str, turns: list[dict]) -> Source:
    messages = _system(turns[0]["below"])
    for turn in turns:
        fields = turn["fields"]
        if fields["input"]:
            messages.append({"role": "user", "content": fields["input"]})
        if fields["output"]:
            messages.append({"role": "assistant", "content": fields["output"]})
    first = turns[0]["fields"]
    link = {"kind": "session", "session_id": session, "trace_ids": [t["trace_id"] for t in turns]}
    fields = {**first, "messages": messages or None, "input_messages": messages or None}
    fields["trajectory"] = _trajectory([s for t in turns for s in t["below"] if s.kind == "tool"])
    fields["first_input"] = next((t["fields"]["input"] for t in turns if t["fields"]["input"]), "")
    fields["last_output"] = next(
        (t["fields"]["output"] for t in reversed(turns) if t["fields"]["output"]), ""
    )
    return Source(fields, link, session, root=turns[0]["root"])


def _system(below: list[Span]) -> list[dict]:
    for span in below:
        messages = (span.input_messages or {}).get("messages") or []
        if messages and messages[0].get("role") == "system":
            return [{"role": "system", "content": messages[0].get("content")}]
    return []
