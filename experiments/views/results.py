"""Dashboard partials, the result drawer with human correction, and export downloads."""

from __future__ import annotations

from django.http import Http404, StreamingHttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.safety.caps import ANSWER_BYTES
from assay.safety.csvcells import download_response, excel_wanted
from assay.web.decorators import workspace_view
from assay.web.errors import form_service
from evaluators.llm.render import prompt_text

from .. import selectors, services
from ..forms import CorrectionForm
from ..results.dashboard import dashboard_cards
from ..results.exports import FORMATS, export_filename, export_stream
from ..results.grid import (
    DRAWER_HEAD,
    drawer_output,
    drawer_results,
    grid_rows,
    item_in_experiment,
    text_cell,
)

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
def item_drawer(request, id, item_id):
    """Everything about one row: its cells, the target's output, and every evaluator of it
    side by side (reason, stdout, rendered prompt, raw answer), each with its correction."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    item = item_in_experiment(experiment=experiment, item_id=item_id)
    return _drawer(request, experiment, item, _repeat(request, experiment))


@workspace_view()
def result_drawer(request, id, result_id):
    """The drawer of the row this result belongs to, opened on this evaluator."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    result = selectors.result_get(experiment=experiment, result_id=result_id)
    return _drawer(request, experiment, result.item, result.repeat, focus=result.pk)


def _repeat(request, experiment) -> int:
    raw = request.GET.get("repeat", "")
    return int(raw) if raw.isdigit() and int(raw) < experiment.repetitions else 0


def _drawer(request, experiment, item, repeat, *, focus=None, forms=None, status=200, **extra):
    evaluators = drawer_results(experiment=experiment, item=item, repeat=repeat)
    for entry in evaluators:
        result = entry["result"]
        if result is not None:
            entry["form"] = (forms or {}).get(result.pk) or _form(result)
            entry["prompt"] = prompt_text(result.rendered_request)
    context = {
        "experiment": experiment,
        "item": item,
        "number": item.row_number,
        "repeat": repeat,
        "repeats": range(experiment.repetitions),
        "cells": _drawer_cells(experiment, item),
        "output": drawer_output(experiment=experiment, item=item, repeat=repeat),
        "evaluators": evaluators,
        "focus": focus,
        **extra,
    }
    return render(request, "experiments/_drawer.html", context, status=status)


def _drawer_cells(experiment, item) -> list[tuple[str, object]]:
    data = item.data or {}
    return [
        (c["name"], text_cell(data.get(c["name"]), head=DRAWER_HEAD, full=ANSWER_BYTES))
        for c in experiment.evalset_version.columns
    ]


def _form(result, data=None) -> CorrectionForm:
    initial = {
        "verdict": result.human_verdict or result.verdict,
        "score": result.human_score,
        "note": result.correction_note,
    }
    return CorrectionForm(data, initial=initial, prefix=f"r{result.pk}")


@require_POST
@workspace_view()
def result_correct(request, id, result_id):
    """A human overrides the verdict (and optionally the score) with a note; the drawer and
    the grid row show it in place and the dashboard's counts refresh."""
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    result = selectors.result_get(experiment=experiment, result_id=result_id)
    form = _form(result, request.POST)
    if form.is_valid() and form_service(
        form, services.result_correct, result=result, user=request.user, **form.cleaned_data
    ):
        row = _grid_row(experiment, result.item_id)
        response = _drawer(
            request, experiment, result.item, result.repeat, focus=result.pk, corrected_row=row
        )
        response["HX-Trigger"] = "result-corrected"
        return response
    forms = {result.pk: form}
    return _drawer(
        request, experiment, result.item, result.repeat, focus=result.pk, forms=forms, status=400
    )


def _grid_row(experiment, item_pk: int) -> dict:
    """The item's grid row as it is now, to replace the one on the page (out of band)."""
    bindings = list(experiment.bindings.select_related("evaluator_version__evaluator"))
    return grid_rows(experiment=experiment, bindings=bindings, item_pks=[item_pk])[0]


@workspace_view()
def export(request, id, fmt):
    """Streamed download: results.csv, results.jsonl, report.jsonl or hitlog.jsonl."""
    if fmt not in FORMATS:
        raise Http404(_("No such export"))
    experiment = selectors.experiment_get(workspace=request.workspace, public_id=id)
    return export_download(experiment, fmt, excel=excel_wanted(request.GET))


def export_download(experiment, fmt: str, *, excel: bool) -> StreamingHttpResponse:
    """The streamed export; `excel` (CSV only) starts it with a byte order mark so Excel reads
    UTF-8 (the default file stays byte for byte what scripts read)."""
    return download_response(
        export_stream(experiment, fmt),
        name=export_filename(experiment, fmt),
        content_type=EXPORT_MIME[fmt],
        excel=excel,
    )
