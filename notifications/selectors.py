"""Reads of webhooks, scoped to a workspace: endpoints and their delivery logs."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils import formats, timezone
from django.utils.translation import gettext

from assay.models import Workspace
from assay.selectors import public_or_404

from .models import DISABLED_NOTICE, Delivery, WebhookEndpoint

LOG_PAGE = 50  # deliveries a page shows, newest first


def endpoints_list(*, workspace: Workspace) -> QuerySet[WebhookEndpoint]:
    """The workspace's webhook endpoints, newest first."""
    return WebhookEndpoint.objects.filter(workspace=workspace)


def endpoint_get(*, workspace: Workspace, public_id) -> WebhookEndpoint:
    """One endpoint of the workspace (404 for another workspace's or a malformed id)."""
    return public_or_404(endpoints_list(workspace=workspace), public_id, "webhook")


def deliveries_list(*, endpoint: WebhookEndpoint) -> QuerySet[Delivery]:
    """An endpoint's delivery log, newest first, with each delivery's event."""
    return Delivery.objects.filter(endpoint=endpoint).select_related("event")


def delivery_get(*, endpoint: WebhookEndpoint, public_id) -> Delivery:
    """One delivery of the endpoint (404 for another endpoint's)."""
    return public_or_404(deliveries_list(endpoint=endpoint), public_id, "delivery")


def url_shown(url: str, *, owner: bool) -> str:
    """An endpoint's URL as a member may see it: whole for owners; for others the scheme and
    host only, since chat webhooks (Slack, Feishu) carry their token in the path."""
    if owner:
        return url
    scheme, _, rest = url.partition("://")
    host = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    return f"{scheme}://{host}/…"


def disabled_notice_shown(endpoint: WebhookEndpoint) -> str:
    """Why Assay disabled the endpoint, in the active language ("" when it did not)."""
    facts = endpoint.disabled_facts
    if not endpoint.disabled_notice or not facts or endpoint.disabled_at is None:
        return endpoint.disabled_notice
    when = formats.date_format(timezone.localtime(endpoint.disabled_at), "Y-m-d H:i")
    return gettext(DISABLED_NOTICE) % {"when": when, "n": facts["n"], "last": facts["last"]}
