"""API shapes of webhooks: endpoints (the secret only in the answers that make one), deliveries."""

from __future__ import annotations

from rest_framework import serializers

from assay.api.serializers import StrictSerializer
from assay.vocabulary import SUBSCRIBABLE_EVENTS

from .models import Delivery, WebhookEndpoint, WebhookFormat
from .selectors import url_shown


class WebhookSerializer(serializers.ModelSerializer):
    """An endpoint as members read it; owners see its whole URL, others its host only."""

    id = serializers.UUIDField(source="public_id", read_only=True)
    url = serializers.SerializerMethodField(
        help_text="Where events are sent. Owners see it whole; other members see its host "
        "(chat webhooks carry their token in the path)."
    )
    previous_secret_until = serializers.DateTimeField(
        read_only=True,
        help_text="After a rotation: until when the previous secret signs alongside the new one.",
    )

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "description",
            "events",
            "format",
            "enabled",
            "disabled_notice",
            "disabled_at",
            "previous_secret_until",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_url(self, endpoint: WebhookEndpoint) -> str:
        membership = getattr(self.context.get("request"), "membership", None)
        return url_shown(endpoint.url, owner=bool(membership and membership.is_owner))


class WebhookWriteSerializer(StrictSerializer):
    url = serializers.CharField(max_length=500)
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=SUBSCRIBABLE_EVENTS),
        allow_empty=False,
        max_length=len(SUBSCRIBABLE_EVENTS),
    )
    format = serializers.ChoiceField(choices=WebhookFormat.choices, default=WebhookFormat.GENERIC)
    description = serializers.CharField(max_length=200, required=False, allow_blank=True)
    enabled = serializers.BooleanField(required=False, default=True)


class CreatedWebhookSerializer(WebhookSerializer):
    secret = serializers.CharField(
        read_only=True,
        help_text="Shown once; store it now. Verify each delivery's webhook-signature with it "
        "(Standard Webhooks).",
    )

    class Meta(WebhookSerializer.Meta):
        fields = WebhookSerializer.Meta.fields + ["secret"]
        read_only_fields = fields


class RotatedSecretSerializer(serializers.Serializer):
    secret = serializers.CharField(help_text="The new secret, shown once.")
    previous_secret_until = serializers.DateTimeField(
        help_text="Until then the previous secret signs alongside the new one."
    )


class DeliverySerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    message_id = serializers.CharField(
        source="event.message_id", help_text="The webhook-id header (the same on redelivery)."
    )
    event_type = serializers.CharField(source="event.type")

    class Meta:
        model = Delivery
        fields = [
            "id",
            "message_id",
            "event_type",
            "status",
            "attempts",
            "next_attempt_at",
            "last_attempt_at",
            "request_body",
            "response_status",
            "response_body",
            "error",
            "created_at",
        ]
        read_only_fields = fields
