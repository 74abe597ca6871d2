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


@workspace_view()
def import_garak(request):
    """GET: the upload form; POST: import and go to the (first) experiment it made."""
    form = GarakImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        made = form_service(form, _imported, request=request, upload=form.cleaned_data["file"])
        if made:
            text = _("Imported %(n)d run(s) of garak; the workers are scoring them.")
            messages.success(request, text % {"n": len(made)})
            return redirect("experiments:detail", ws=request.workspace.slug, id=made[0].public_id)
    status = 400 if form.errors else 200
    return render(request, "experiments/import_garak.html", {"form": form}, status=status)


def _imported(*, request, upload):
    data = services.garak_upload_bytes(upload=upload)
    return services.garak_scan_import(workspace=request.workspace, user=request.user, data=data)
