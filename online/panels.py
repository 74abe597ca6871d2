"""Online evaluation on a trace's page and a session's (`traces.views.panels`): each rule's outcomes
for the trace's spans, and "score spans like this", which starts a new rule from one of its
spans; each session rule's outcomes for the session."""

from __future__ import annotations

from django.template.loader import render_to_string

from . import selectors


def trace_scores_panel(*, request, trace_id: str, spans: list) -> str:
    """The panel's HTML: the outcomes by span (newest first) and the new-rule picker."""
    outcomes = selectors.trace_outcomes(workspace=request.workspace, trace_id=trace_id)
    names = {span.span_id: span.name for span in spans}
    rows = [{"outcome": o, "span_name": names.get(o.span_id, o.span_id)} for o in outcomes]
    context = {"rows": rows, "spans": spans, "trace_id": trace_id}
    return render_to_string("online/_trace_panel.html", context, request=request)


def session_scores_panel(*, request, session_id: str, traces: list) -> str:
    """The session panel's HTML: each session rule's outcomes for the session."""
    outcomes = selectors.session_outcomes(workspace=request.workspace, session_id=session_id)
    context = {"outcomes": outcomes, "session_id": session_id}
    return render_to_string("online/_session_panel.html", context, request=request)
