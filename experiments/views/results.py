"""Dashboard partials, the result drawer with human correction, and export downloads."""

from __future__ import annotations

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from assay.web.decorators import workspace_view
from assay.web.errors import form_service
from evaluators.llm.render import prompt_text
from evaluators.turns import DATASET, TARGET

from .. import selectors, services
from ..forms import CorrectionForm
from ..results.dashboard import dashboard_cards
from ..results.exports import FORMATS, export_filename, export_stream

EXPORT_MIME = {
    "csv": "text/csv",
    "jsonl": "application/x-ndjson",
    "report": "application/x-ndjson",
    "hitlog": "application/x-ndjson",
}


@workspace_view()
def dashboard(request, id):
    """The dashboard cards alone (refreshed after a correction)."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    return render(request, "experiments/_dashboard.html", {"cards": dashboard_cards(experiment)})


@workspace_view()
def result_drawer(request, id, result_id):
    """Everything about one row: inputs, output, score, reason, stdout, error, prompt, answer."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    result = selectors.result_get(experiment=experiment, result_id=result_id)
    return _drawer(request, experiment, result, CorrectionForm(initial=_initial(result)))


def _initial(result) -> dict:
    return {
        "verdict": result.human_verdict or result.verdict,
        "score": result.human_score,
        "note": result.correction_note,
    }


def _drawer(request, experiment, result, form, status=200, corrected=False):
    fields = (result.input or {}).get(TARGET) or {}
    inputs = (result.input or {}).get(DATASET) or {}
    return render(
        request,
        "experiments/_drawer.html",
        {
            "experiment": experiment,
            "result": result,
            "form": form,
            "outputs": fields,
            "inputs": inputs,
            "ext": (result.input or {}).get("ext") or {},
            "prompt": prompt_text(result.rendered_request),
            "corrected": corrected,  # the table's row is replaced in place (out of band)
        },
        status=status,
    )


@require_POST
@workspace_view()
def result_correct(request, id, result_id):
    """A human overrides the verdict (and optionally the score) with a note; counts refresh."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    result = selectors.result_get(experiment=experiment, result_id=result_id)
    form = CorrectionForm(request.POST)
    if form.is_valid():
        if form_service(
            form, services.result_correct, result=result, user=request.user, **form.cleaned_data
        ):
            response = _drawer(
                request,
                experiment,
                selectors.result_get(experiment=experiment, result_id=result.pk),
                CorrectionForm(initial=_initial(result)),
                corrected=True,
            )
            response["HX-Trigger"] = "result-corrected"
            return response
    return _drawer(request, experiment, result, form, status=400)


@workspace_view()
def export(request, id, fmt):
    """Streamed download: results.csv, results.jsonl, report.jsonl or hitlog.jsonl."""
    if fmt not in FORMATS:
        raise Http404("No such export")
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    response = StreamingHttpResponse(export_stream(experiment, fmt), content_type=EXPORT_MIME[fmt])
    response["Content-Disposition"] = f'attachment; filename="{export_filename(experiment, fmt)}"'
    return response
