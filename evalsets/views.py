"""Pages of the evalsets app."""

from django.shortcuts import render

from assay.decorators import workspace_view


@workspace_view()
def index(request):
    return render(request, "evalsets/list.html", {})
