"""The annotation pages, under /w/<workspace>/annotation/: the queues' list (read only; the
review and agreement pages are next)."""

from __future__ import annotations

from django.shortcuts import render

from assay.web.decorators import workspace_view

from . import selectors


@workspace_view()
def queue_list(request):
    """Every queue of the workspace with its settings and progress."""
    queues = selectors.annotation_queues_list(workspace=request.workspace)
    rows = [{"queue": q, "progress": selectors.queue_progress(queue=q)} for q in queues]
    return render(request, "annotation/list.html", {"rows": rows})
