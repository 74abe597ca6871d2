"""The traces pages: the traces list, a trace, sessions and a session (the OTLP receiver is
`traces.ingest.receiver`). Lists are keyset pages (`?cursor=`), never counted whole."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render

from assay.web.decorators import workspace_view

from .. import selectors
from ..reading.keyset import BadCursor
from .forms import SessionFilterForm, TraceFilterForm

TRACES_PER_PAGE = 50
SESSIONS_PER_PAGE = 50
COUNTED_UP_TO = 1000


@workspace_view()
def trace_list(request):
    form = TraceFilterForm(request.GET)
    if not form.is_valid():  # the errors are shown, not every trace as if unfiltered
        return render(request, "traces/list.html", {"form": form, "rows": [], "tab": "traces"})
    filters, sort = form.filters(), form.cleaned_data.get("sort", "")
    rows, following = _page(
        selectors.traces_page,
        request,
        workspace=request.workspace,
        filters=filters,
        sort=sort,
        size=TRACES_PER_PAGE,
    )
    count = None  # with an attribute, matches are only known a page at a time
    if not filters.get("attribute"):
        count = selectors.traces_count_bounded(
            workspace=request.workspace, filters=filters, limit=COUNTED_UP_TO
        )
    context = {"form": form, "rows": rows, "sort": sort or "-start"}
    context |= _next(request, following)
    capped = count is not None and count > COUNTED_UP_TO
    context |= {"count": count, "count_capped": capped, "tab": "traces"}
    return render(request, "traces/list.html", context)


@workspace_view()
def trace_detail(request, trace_id: str):
    spans = selectors.trace_spans(workspace=request.workspace, trace_id=trace_id)
    context = {"trace_id": spans[0].trace_id, "rows": selectors.span_rows(spans)}
    return render(request, "traces/detail.html", context)


@workspace_view()
def session_list(request):
    form = SessionFilterForm(request.GET)
    if not form.is_valid():
        context = {"form": form, "rows": [], "tab": "sessions"}
        return render(request, "traces/sessions.html", context)
    rows, following = _page(
        selectors.sessions_page,
        request,
        workspace=request.workspace,
        filters=form.filters(),
        size=SESSIONS_PER_PAGE,
    )
    context = {"form": form, "rows": rows, "tab": "sessions", **_next(request, following)}
    return render(request, "traces/sessions.html", context)


@workspace_view()
def session_detail(request, session_id: str):
    traces = selectors.session_traces(workspace=request.workspace, session_id=session_id)
    turns = selectors.session_turns(workspace=request.workspace, traces=traces)
    context = {"session_id": session_id, "turns": turns, "traces": traces}
    context["shown_all"] = len(traces) < selectors.SESSION_TRACES_SHOWN
    return render(request, "traces/session.html", context)


def _page(select, request, **kwargs):
    """A keyset page from the request's cursor; a cursor not made by this list is a 404."""
    try:
        return select(cursor=request.GET.get("cursor") or None, **kwargs)
    except BadCursor as exc:
        raise Http404 from exc


def _next(request, following: str | None) -> dict:
    """The next page's cursor and link (this page's query with the cursor)."""
    if not following:
        return {"next_cursor": None, "next_url": None}
    query = request.GET.copy()
    query["cursor"] = following
    return {"next_cursor": following, "next_url": f"?{query.urlencode()}"}
