"""The "Import a garak scan" page: upload a garak report.jsonl (checked in the request), then
follow its import, done in the background probe by probe, to the experiments it made."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from assay.web.decorators import workspace_view
from assay.web.errors import form_service

from .. import selectors, services


class GarakImportForm(forms.Form):
    file = forms.FileField(
        label=_lazy("garak report (.report.jsonl)"),
        help_text=_lazy(
            "The report garak wrote for a run. Each probe becomes an experiment on a new "
            "version of the evalset “garak <probe>”, each detector an evaluator that reads the "
            "scores garak recorded; verdicts use the run's threshold."
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
    """GET: the upload forms and the latest imports; POST: check the report and queue its
    import (then its page follows it), or store a reference file."""
    if request.method == "POST" and "reference" in request.FILES:
        return _reference(request)
    form = GarakImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        made = form_service(form, _queued, request=request, **form.cleaned_data)
        if made:
            job, queued = made
            if not queued:
                messages.info(request, _before(job))
            return redirect(
                "experiments:import_garak_job", ws=request.workspace.slug, id=job.public_id
            )
    return _page(request, form, GarakReferenceForm())


@workspace_view()
def import_garak_job(request, id):
    """One import: its progress (polled while it runs), then its experiments or its error."""
    job = selectors.garak_import_get(workspace=request.workspace, public_id=id)
    return render(request, "experiments/garak_import_job.html", {"job": job})


@workspace_view()
def import_garak_progress(request, id):
    """The progress card htmx polls; it stops polling once the import is finished."""
    job = selectors.garak_import_get(workspace=request.workspace, public_id=id)
    return render(request, "experiments/_garak_import_progress.html", {"job": job})


def _before(job) -> str:
    if job.already:
        return _("This garak run was imported before: nothing new was made; here it is.")
    return _("This garak run is being imported already: here is that import.")


def _page(request, form, reference_form):
    status = 400 if form.errors or reference_form.errors else 200
    context = {
        "form": form,
        "reference_form": reference_form,
        "references": _references(request),
        "imports": selectors.garak_imports(workspace=request.workspace)[:5],
        "max_mb": services.max_report_bytes() // 2**20,
        "max_probes": settings.ASSAY_GARAK_MAX_PROBES,
    }
    return render(request, "experiments/import_garak.html", context, status=status)


def _references(request):
    return selectors.garak_references(workspace=request.workspace)[:10]


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


def _queued(*, request, file, threshold, partial):
    return services.garak_import_create(
        workspace=request.workspace,
        user=request.user,
        upload=file,
        threshold=threshold,
        partial=partial,
    )
