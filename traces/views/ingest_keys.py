"""Settings → Ingest keys: the workspace's keys for OpenTelemetry exporters. Any member sees
the list (as in the API); owners create keys (each shown once, with the lines an exporter
needs) and revoke them."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from assay.models import Membership
from assay.selectors import public_or_404
from assay.web.decorators import workspace_view
from assay.web.errors import form_service

from .. import selectors, services


class IngestKeyForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Key name"), max_length=120)


@workspace_view(write_role=Membership.Role.OWNER)
def settings_ingest_keys(request):
    form = IngestKeyForm(request.POST or None)
    issued = None
    if request.method == "POST" and form.is_valid():
        issued = form_service(
            form,
            services.ingest_key_issue,
            workspace=request.workspace,
            user=request.user,
            name=form.cleaned_data["name"],
        )
        form = IngestKeyForm() if issued else form
    context = {
        "form": form,
        "keys": selectors.ingest_keys_list(workspace=request.workspace).order_by("-created_at"),
        "issued": issued,
        "endpoint": request.build_absolute_uri("/otlp"),
        "is_owner": request.membership.role == Membership.Role.OWNER,
    }
    return render(request, "traces/settings_ingest_keys.html", context)


@require_POST
@workspace_view(write_role=Membership.Role.OWNER)
def settings_ingest_key_revoke(request, ingest_key_id):
    keys = selectors.ingest_keys_list(workspace=request.workspace)
    services.ingest_key_revoke(ingest_key=public_or_404(keys, ingest_key_id, "ingest key"))
    messages.success(request, _("Ingest key revoked: the endpoint refuses it from now on."))
    return redirect("settings_ingest_keys", ws=request.workspace.slug)
