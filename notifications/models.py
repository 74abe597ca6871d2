"""Webhook endpoints, the events Assay emits and their deliveries to each endpoint."""

from __future__ import annotations

import json
import uuid

from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from assay.bases import Authored
from assay.vocabulary import EventType


class WebhookFormat(models.TextChoices):
    """The body an endpoint is sent: the event as JSON, or a chat bot's message."""

    GENERIC = "generic", _("Generic JSON")
    SLACK = "slack", _("Slack")
    FEISHU = "feishu", _("Feishu bot")


# why Assay disabled an endpoint, stored in English and translated where it is shown
DISABLED_NOTICE = gettext_noop(
    "Disabled on %(when)s: a delivery failed %(n)d times over about a day (last: %(last)s)."
)


class WebhookEndpoint(Authored):
    """A workspace's receiver: where events of the chosen types go, signed with its secret
    (Standard Webhooks). The secret is stored encrypted and shown once; after a rotation the
    previous one signs alongside the new one until `previous_secret_until`."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(
        "assay.Workspace", on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    url = models.URLField(max_length=500)
    description = models.CharField(max_length=200, blank=True)
    events = models.JSONField(default=list, help_text="the event types it receives")
    format = models.CharField(
        max_length=16, choices=WebhookFormat.choices, default=WebhookFormat.GENERIC
    )
    enabled = models.BooleanField(default=True)
    secret_ciphertext = models.TextField()
    previous_secret_ciphertext = models.TextField(blank=True)
    previous_secret_until = models.DateTimeField(null=True, blank=True)
    # why it was turned off by Assay (retries exhausted), shown on its page until re-enabled
    disabled_notice = models.CharField(max_length=500, blank=True)
    # the notice's numbers, so a page says it in its reader's language: {"n", "last"}
    disabled_facts = models.JSONField(default=dict, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"<WebhookEndpoint {self.public_id}>"


class Event(models.Model):
    """Something that happened in a workspace, as sent: its id is every delivery's
    `webhook-id` (the receiver's idempotency key, the same on redelivery)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(
        "assay.Workspace", on_delete=models.CASCADE, related_name="webhook_events"
    )
    type = models.CharField(max_length=64, choices=EventType.choices)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.type} {self.public_id}"

    @property
    def message_id(self) -> str:
        return f"msg_{self.public_id.hex}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("pending")
    SENDING = "sending", _("sending")
    SUCCEEDED = "succeeded", _("succeeded")
    FAILED = "failed", _("failed")


class Delivery(models.Model):
    """One event to one endpoint: attempted until a 2xx answer or the retries run out. The
    last attempt's answer is kept (status, the head of its body, or the error)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # a sender's claim: after this, a sender that died is presumed gone and the sweep retakes it
    claimed_until = models.DateTimeField(null=True, blank=True)
    request_body = models.TextField(blank=True)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    response_body = models.TextField(blank=True)
    error = models.CharField(max_length=500, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="delivery_due"),
        ]

    def __str__(self) -> str:
        return f"delivery {self.public_id} ({self.status})"

    def __repr__(self) -> str:
        return f"<Delivery {self.public_id} {self.status}>"

    @property
    def request_body_shown(self) -> str:
        """The request body indented for reading (as sent when it is not JSON)."""
        try:
            return json.dumps(json.loads(self.request_body), ensure_ascii=False, indent=2)
        except ValueError:
            return self.request_body
