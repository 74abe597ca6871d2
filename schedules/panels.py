"""What schedules adds to other apps' pages: "Save as template" on an experiment's page."""

from __future__ import annotations

from django.template.loader import render_to_string

from experiments.models import ExperimentStatus

from .forms import FromExperimentForm


def save_as_template(*, request, experiment) -> str:
    """A button opening a small form that names the template; editors, runs past draft."""
    if not request.membership.can_edit or experiment.status == ExperimentStatus.DRAFT:
        return ""
    form = FromExperimentForm(initial={"name": experiment.name})
    context = {"experiment": experiment, "form": form, "workspace": request.workspace}
    return render_to_string("schedules/_save_as_template.html", context, request=request)
