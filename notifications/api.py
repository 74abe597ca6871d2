"""The webhooks API: endpoints, their secrets, test events and delivery logs. Members read;
owners write (an endpoint decides where the workspace's news goes)."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.response import Response

from assay.api.base import WorkspaceScopedViewSet, validated
from assay.models import Membership

from . import selectors, services
from . import serializers as s
from .models import WebhookEndpoint


@extend_schema_view(
    list=extend_schema(
        summary=_("List webhooks"),
        description=_(
            "The workspace's webhook endpoints: URL, events, format (generic JSON, Slack, "
            "Feishu bot), whether enabled, and the notice when Assay disabled one after its "
            "retries ran out. Owners see each URL whole, other members its host. Secrets are "
            "never returned."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get a webhook"),
        description=_("One endpoint, as in the list; its secret is never returned."),
    ),
    destroy=extend_schema(
        summary=_("Delete a webhook"),
        description=_("Deletes the endpoint and its delivery log. Owners only."),
    ),
)
class WebhookViewSet(
    WorkspaceScopedViewSet,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
):
    """Workspace webhook endpoints, signed the Standard Webhooks way."""

    serializer_class = s.WebhookSerializer
    queryset = WebhookEndpoint.objects.all()
    write_role = Membership.Role.OWNER
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def scoped_queryset(self):
        return selectors.endpoints_list(workspace=self.request.workspace)

    def _out(self, endpoint, serializer=s.WebhookSerializer, **extra):
        return serializer(endpoint, context={"request": self.request}).data | extra

    @extend_schema(
        summary=_("Add a webhook"),
        description=_(
            "Creates an endpoint from `url` (checked against the outbound policy), `events` "
            "(the event types it receives), `format` (`generic`, `slack` or `feishu`), an "
            "optional `description` and `enabled`. The answer holds its `secret` (`whsec_…`), "
            "this once: every delivery carries webhook-id, webhook-timestamp and "
            "webhook-signature (HMAC-SHA256 of id.timestamp.body). Owners only."
        ),
        request=s.WebhookWriteSerializer,
        responses={201: s.CreatedWebhookSerializer},
    )
    def create(self, request):
        body = validated(s.WebhookWriteSerializer, request)
        endpoint, secret = services.endpoint_create(
            workspace=request.workspace, user=request.user, **body
        )
        endpoint.secret = secret
        data = self._out(endpoint, s.CreatedWebhookSerializer)
        return Response(data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary=_("Update a webhook"),
        description=_(
            "Changes only the fields given (url, events, format, description, enabled). "
            "Enabling an endpoint Assay disabled clears its notice. Owners only; 400 names "
            "the field at fault."
        ),
        request=s.WebhookWriteSerializer,
        responses=s.WebhookSerializer,
    )
    def partial_update(self, request, id=None):
        body = validated(s.WebhookWriteSerializer, request, partial=True)
        endpoint = services.endpoint_update(endpoint=self.get_object(), **body)
        return Response(self._out(endpoint))

    def perform_destroy(self, instance):
        services.endpoint_delete(endpoint=instance)

    @extend_schema(
        summary=_("Rotate a webhook's secret"),
        description=_(
            "Makes a new secret and answers it, this once. For 24 hours the previous secret "
            "signs alongside it (webhook-signature then holds two `v1,` signatures), so "
            "receivers can switch without losing a message. Owners only."
        ),
        request=None,
        responses=s.RotatedSecretSerializer,
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request, id=None):
        endpoint = self.get_object()
        secret = services.endpoint_secret_rotate(endpoint=endpoint)
        data = {"secret": secret, "previous_secret_until": endpoint.previous_secret_until}
        return Response(s.RotatedSecretSerializer(data).data)

    @extend_schema(
        summary=_("Send a test event"),
        description=_(
            "Sends a `webhook.test` event to this endpoint only (a disabled one too: a way to "
            "check the receiver before enabling it again) and answers its delivery, queued. "
            "Owners only."
        ),
        request=None,
        responses={202: s.DeliverySerializer},
    )
    @action(detail=True, methods=["post"])
    def test(self, request, id=None):
        delivery = services.endpoint_test_send(endpoint=self.get_object())
        return Response(s.DeliverySerializer(delivery).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary=_("List a webhook's deliveries"),
        description=_(
            "The delivery log, newest first: the event, the request body, the status "
            "(pending, sending, succeeded, failed), attempts, the next attempt, and the last "
            "answer (status code and the first 2 KB of its body, or the error)."
        ),
        responses=s.DeliverySerializer(many=True),
    )
    @action(detail=True, methods=["get"])
    def deliveries(self, request, id=None):
        log = selectors.deliveries_list(endpoint=self.get_object())
        page = self.paginate_queryset(log)
        return self.get_paginated_response(s.DeliverySerializer(page, many=True).data)

    @extend_schema(
        summary=_("Redeliver"),
        description=_(
            "Sends a delivery's event again, as a new delivery with fresh attempts and the "
            "same webhook-id (so a receiver that had it can tell). Owners only."
        ),
        request=None,
        responses={202: s.DeliverySerializer},
    )
    @action(
        detail=True,
        methods=["post"],
        url_path="deliveries/<uuid:delivery_id>/redeliver",
    )
    def redeliver(self, request, id=None, delivery_id=None):
        delivery = selectors.delivery_get(endpoint=self.get_object(), public_id=delivery_id)
        again = services.delivery_redeliver(delivery=delivery)
        return Response(s.DeliverySerializer(again).data, status=status.HTTP_202_ACCEPTED)
