"""The trends partial as the evalset page shows it (the experiment page includes it itself)."""

from __future__ import annotations

from django.template.loader import render_to_string

from ..results.trends import evalset_trends


def evalset_trends_panel(*, request, evalset) -> str:
    """Registered with evalsets.panels: the set's runs, evaluator by evaluator."""
    trends = evalset_trends(workspace=request.workspace, evalset=evalset)
    context = {"trends": trends, "workspace": request.workspace}
    return render_to_string("experiments/_trends.html", context)
