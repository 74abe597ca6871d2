"""The calibrations panel as an evaluator version's page shows it (annotation's queue page
includes the same partial for the calibrations of its gold labels)."""

from __future__ import annotations

from django.template.loader import render_to_string

from ..selectors.calibrations import evaluator_calibrations


def version_calibrations_panel(*, request, version) -> str:
    """Registered with evaluators.panels: the version's calibrations against people."""
    found = evaluator_calibrations(evaluator=version.evaluator, version=version)
    context = {"calibrations": found, "workspace": request.workspace, "panel": True}
    return render_to_string("experiments/_calibrations.html", context, request=request)
