"""Pages of the evaluators app."""

from django.shortcuts import render

from assay.decorators import workspace_view


@workspace_view()
def index(request):
    return render(request, "evaluators/list.html", {})
