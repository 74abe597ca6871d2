"""The traces pages: the traces list and a trace (the OTLP receiver is `traces.receiver`)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.shortcuts import render

from assay.web.decorators import workspace_view

from . import selectors
from .forms import TraceFilterForm

TRACES_PER_PAGE = 50


@workspace_view()
def trace_list(request):
    form = TraceFilterForm(request.GET or None)
    rows = selectors.traces_list(workspace=request.workspace, filters=form.filters())
    page = Paginator(rows, TRACES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "traces/list.html", {"form": form, "page": page})


@workspace_view()
def trace_detail(request, trace_id: str):
    spans = selectors.trace_spans(workspace=request.workspace, trace_id=trace_id)
    context = {"trace_id": spans[0].trace_id, "rows": selectors.span_rows(spans)}
    return render(request, "traces/detail.html", context)
