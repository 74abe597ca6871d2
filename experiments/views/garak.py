"""The "Import a garak scan" page: upload a garak report.jsonl, get its runs as experiments."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from assay.web.decorators import workspace_view
from assay.web.errors import form_service

from .. import services


class GarakImportForm(forms.Form):
    file = forms.FileField(
        label=_lazy("garak report (.report.jsonl)"),
        help_text=_lazy(
            "The report garak wrote for a run. Each probe becomes an experiment on a new "
            "version of the evalset “garak <probe>”, each detector an evaluator that reads the "
            "scores garak recorded; verdicts use the run's threshold. At most 64 MB."
        ),
    )
    threshold = forms.FloatField(
        label=_lazy("Threshold (optional)"),
        required=False,
        min_value=0.0,
        max_value=1.0,
        help_text=_lazy(
            "garak's --eval_threshold for this run. garak does not write it into the report, "
            "so Assay reads it from garak's own counts; give it when you know it (it must "
            "reproduce those counts)."
        ),
    )
    partial = forms.BooleanField(
        label=_lazy("Import a report cut short as partial"),
        required=False,
        help_text=_lazy(
            "A report without garak's closing “completion” entry is refused; tick this to "
            "import the attempts it holds, marked partial."
        ),
    )


class GarakReferenceForm(forms.Form):
    reference = forms.FileField(
        label=_lazy("garak calibration or detector metrics (.json)"),
        help_text=_lazy(
            "A calibration (garak/data/calibration/*.json) rates runs whose probe and detector "
            "names match with garak's Z; detector metrics (detector_metrics_summary.json) "
            "correct those detectors' intervals. The newest file of each kind is used."
        ),
    )


@workspace_view()
def import_garak(request):
    """GET: the upload forms; POST: import and go to the (first) experiment it made, or store
    a reference file."""
    if request.method == "POST" and "reference" in request.FILES:
        return _reference(request)
    form = GarakImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        made = form_service(form, _imported, request=request, **form.cleaned_data)
        if made:
            _say(request, made)
            return redirect("experiments:detail", ws=request.workspace.slug, id=made[0].public_id)
    return _page(request, form, GarakReferenceForm())


def _page(request, form, reference_form):
    status = 400 if form.errors or reference_form.errors else 200
    return render(
        request,
        "experiments/import_garak.html",
        {"form": form, "reference_form": reference_form, "references": _references(request)},
        status=status,
    )


def _references(request):
    from ..selectors import garak_references

    return garak_references(workspace=request.workspace)[:10]


def _reference(request):
    form = GarakReferenceForm(request.POST, request.FILES)
    if form.is_valid():
        upload = form.cleaned_data["reference"]
        made = form_service(form, _stored, request=request, upload=upload)
        if made:
            messages.success(
                request, _("garak %(kind)s stored.") % {"kind": made.get_kind_display()}
            )
            return redirect("experiments:import_garak", ws=request.workspace.slug)
    return _page(request, GarakImportForm(), form)


def _stored(*, request, upload):
    data = services.garak_upload_bytes(upload=upload, limit=services.MAX_REFERENCE_BYTES)
    return services.garak_reference_upload(workspace=request.workspace, name=upload.name, data=data)


def _imported(*, request, file, threshold, partial):
    data = services.garak_upload_bytes(upload=file)
    return services.garak_scan_import(
        workspace=request.workspace,
        user=request.user,
        data=data,
        threshold=threshold,
        partial=partial,
    )


def _say(request, made) -> None:
    if made.already:
        text = _("This garak run was imported before: nothing new was made; here it is.")
        messages.info(request, text)
        return
    text = _("Imported %(n)d run(s) of garak; the workers are scoring them.")
    messages.success(request, text % {"n": len(made)})
    for note in made.notes[1:]:  # the first says how the threshold was read
        messages.warning(request, note)
