"""Settings → Webhooks: the list with the create form, and an endpoint's page (its settings,
secret rotation, a test event, the delivery log with redelivery). Any member reads (the URL's
host only); owners change them, as in the API."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from assay.models import Membership
from assay.web.decorators import workspace_view
from assay.web.errors import form_service

from . import selectors, services
from .forms import WebhookEditForm, WebhookForm
from .models import WebhookEndpoint

OWNER = Membership.Role.OWNER


def _context(request, **extra) -> dict:
    owner = request.membership.is_owner
    return {"is_owner": owner, **extra}


def _shown(endpoint: WebhookEndpoint, owner: bool) -> WebhookEndpoint:
    endpoint.url_shown = selectors.url_shown(endpoint.url, owner=owner)
    endpoint.notice_shown = selectors.disabled_notice_shown(endpoint)
    return endpoint


@workspace_view(write_role=OWNER)
def settings_webhooks(request):
    form = WebhookForm(request.POST or None, initial={"format": "generic"})
    created = None
    if request.method == "POST" and form.is_valid():
        created = form_service(
            form,
            services.endpoint_create,
            workspace=request.workspace,
            user=request.user,
            **form.cleaned_data,
        )
        form = WebhookForm(initial={"format": "generic"}) if created else form
    owner = request.membership.is_owner
    endpoints = [_shown(e, owner) for e in selectors.endpoints_list(workspace=request.workspace)]
    context = _context(request, form=form, endpoints=endpoints, created=created)
    return render(request, "notifications/settings_webhooks.html", context)


@workspace_view(write_role=OWNER)
def settings_webhook(request, webhook_id):
    endpoint = selectors.endpoint_get(workspace=request.workspace, public_id=webhook_id)
    form = WebhookEditForm(request.POST or None, initial=_initial(endpoint))
    if request.method == "POST" and form.is_valid():
        if form_service(form, services.endpoint_update, endpoint=endpoint, **form.cleaned_data):
            messages.success(request, _("Webhook saved."))
            return redirect("settings_webhook", ws=request.workspace.slug, webhook_id=webhook_id)
    return _detail(request, endpoint, form=form)


def _initial(endpoint: WebhookEndpoint) -> dict:
    fields = ("url", "format", "events", "description", "enabled")
    return {name: getattr(endpoint, name) for name in fields}


def _detail(request, endpoint, *, form=None, secret: str = ""):
    owner = request.membership.is_owner
    log = selectors.deliveries_list(endpoint=endpoint)[: selectors.LOG_PAGE]
    context = _context(
        request,
        endpoint=_shown(endpoint, owner),
        form=form or WebhookEditForm(initial=_initial(endpoint)),
        deliveries=log,
        secret=secret,
        now=timezone.now(),
    )
    return render(request, "notifications/settings_webhook.html", context)


@require_POST
@workspace_view(write_role=OWNER)
def settings_webhook_rotate(request, webhook_id):
    endpoint = selectors.endpoint_get(workspace=request.workspace, public_id=webhook_id)
    secret = services.endpoint_secret_rotate(endpoint=endpoint)
    return _detail(request, endpoint, secret=secret)


@require_POST
@workspace_view(write_role=OWNER)
def settings_webhook_test(request, webhook_id):
    endpoint = selectors.endpoint_get(workspace=request.workspace, public_id=webhook_id)
    services.endpoint_test_send(endpoint=endpoint)
    messages.success(request, _("Test event queued; its delivery is in the log below."))
    return redirect("settings_webhook", ws=request.workspace.slug, webhook_id=webhook_id)


@require_POST
@workspace_view(write_role=OWNER)
def settings_webhook_redeliver(request, webhook_id, delivery_id):
    endpoint = selectors.endpoint_get(workspace=request.workspace, public_id=webhook_id)
    delivery = selectors.delivery_get(endpoint=endpoint, public_id=delivery_id)
    services.delivery_redeliver(delivery=delivery)
    messages.success(request, _("Queued again as a new delivery."))
    return redirect("settings_webhook", ws=request.workspace.slug, webhook_id=webhook_id)


@require_POST
@workspace_view(write_role=OWNER)
def settings_webhook_delete(request, webhook_id):
    endpoint = selectors.endpoint_get(workspace=request.workspace, public_id=webhook_id)
    services.endpoint_delete(endpoint=endpoint)
    messages.success(request, _("Webhook deleted."))
    return redirect("settings_webhooks", ws=request.workspace.slug)
