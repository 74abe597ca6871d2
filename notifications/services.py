"""Emitting events, managing webhook endpoints, and delivering events to them.

Every app says what happened through `event_emit`; an event is recorded with one delivery per
enabled endpoint subscribed to its type, and each delivery is sent after the transaction
commits. A delivery is attempted by whoever claims it first (its task, a retry's task, or the
sweep), with one conditional UPDATE, so running it twice sends it once; a failed attempt
(not 2xx, a timeout, a refused address) is tried again after `RETRY_DELAYS`, and when they
run out the endpoint is disabled with a notice.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.safety import crypto
from assay.safety.caps import cap_text
from assay.safety.outbound import outbound_policy, url_problem
from assay.vocabulary import SUBSCRIBABLE_EVENTS, EventType

from . import signing
from .formats import body_render
from .models import (
    DISABLED_NOTICE,
    Delivery,
    DeliveryStatus,
    Event,
    WebhookEndpoint,
    WebhookFormat,
)

log = logging.getLogger(__name__)

# waits after each failed attempt (the Standard Webhooks / Svix schedule): 8 attempts over
# about 27 hours; after the last one fails the delivery has failed
RETRY_DELAYS = (
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
# shorter waits go to the broker as a countdown; longer ones only to the sweep (a broker holding
# a message for hours may hand it out again, and the sweep finds due deliveries anyway)
COUNTDOWN_MAX = timedelta(minutes=10)
CLAIM = timedelta(seconds=60)  # a sender's hold on a delivery: the timeout and some margin
SWEEP_GRACE = timedelta(seconds=30)  # a delivery's own task goes first
SWEEP_LIMIT = 20
ROTATION_OVERLAP = timedelta(hours=24)
REQUEST_BODY_CHARS = 64 * 1024
RESPONSE_HEAD_CHARS = 2 * 1024


# ----------------------------------------------------------------------------- events


def event_emit(*, workspace: Workspace, event_type: str, data: dict) -> None:
    """Say that something happened: an Event and a delivery to every enabled endpoint of the
    workspace subscribed to `event_type`, sent once the caller's transaction commits.
    Nothing is recorded when no endpoint listens. `data` is JSON-able and small (ids, names,
    counts): it goes to the receiver as is."""
    if event_type not in EventType.values:
        raise ValueError(f"unknown event type {event_type!r}")
    endpoints = [
        endpoint
        for endpoint in WebhookEndpoint.objects.filter(workspace=workspace, enabled=True)
        if event_type in endpoint.events
    ]
    if endpoints:
        _event_deliver(workspace=workspace, event_type=event_type, data=data, to=endpoints)


def _event_deliver(*, workspace, event_type: str, data: dict, to: list) -> list[Delivery]:
    with transaction.atomic():
        event = Event.objects.create(workspace=workspace, type=event_type, data=data)
        deliveries = [_delivery_new(event, endpoint) for endpoint in to]
        ids = [delivery.pk for delivery in deliveries]
        transaction.on_commit(lambda: _enqueue(ids))
    return deliveries


def _delivery_new(event: Event, endpoint: WebhookEndpoint) -> Delivery:
    body = body_render(
        format=endpoint.format, event_type=event.type, data=event.data, at=event.created_at
    )
    return Delivery.objects.create(
        endpoint=endpoint,
        event=event,
        request_body=cap_text(body, REQUEST_BODY_CHARS),
        next_attempt_at=timezone.now(),
    )


def _enqueue(delivery_ids: list[int], countdown: float = 0) -> None:
    """Send the deliveries' task messages; a broker that refuses them loses nothing (the
    sweep sends due deliveries) and must not fail the caller, whose transaction committed."""
    from .tasks import deliver

    for delivery_id in delivery_ids:
        try:
            deliver.apply_async(args=[delivery_id], countdown=countdown, queue="default")
        except Exception:  # noqa: BLE001 - any broker failure; the sweep is the fallback
            log.warning("webhook delivery %s not queued; the sweep will send it", delivery_id)


# ----------------------------------------------------------------------------- endpoints


def endpoint_create(
    *,
    workspace: Workspace,
    user,
    url: str,
    events: list[str],
    format: str = WebhookFormat.GENERIC,
    description: str = "",
    enabled: bool = True,
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its secret, returned this once (only its encryption is stored)."""
    secret = signing.secret_new()
    endpoint = WebhookEndpoint(workspace=workspace, created_by=user)
    _endpoint_assign(
        endpoint,
        url=url,
        events=events,
        format=format,
        description=description,
        enabled=enabled,
    )
    endpoint.secret_ciphertext = crypto.encrypt(secret)
    endpoint.save()
    return endpoint, secret


def endpoint_update(*, endpoint: WebhookEndpoint, **fields) -> WebhookEndpoint:
    """Change an endpoint's URL, events, format, description or enabled; enabling it again
    clears the notice of why Assay disabled it; disabling it fails its waiting deliveries (a
    disabled endpoint hears no more retries)."""
    was_enabled = endpoint.enabled
    _endpoint_assign(endpoint, **fields)
    if endpoint.enabled:
        endpoint.disabled_notice, endpoint.disabled_at = "", None
        endpoint.disabled_facts = {}
    endpoint.save()
    if was_enabled and not endpoint.enabled:
        _waiting_fail(endpoint)
    return endpoint


EDITABLE = ("url", "events", "format", "description", "enabled")


def _endpoint_assign(endpoint: WebhookEndpoint, **fields) -> None:
    unknown = set(fields) - set(EDITABLE)
    if unknown:
        raise ValidationError({name: _("Unknown field.") for name in sorted(unknown)})
    for name, value in fields.items():
        setattr(endpoint, name, value)
    endpoint.events = _events_checked(endpoint.events)
    endpoint.full_clean(exclude=["workspace", "secret_ciphertext", "events"])
    problem = url_problem(endpoint.url, outbound_policy(settings.ASSAY_OUTBOUND_ALLOW))
    if problem:
        raise ValidationError({"url": problem})


def _events_checked(events) -> list[str]:
    if not isinstance(events, list) or not events:
        raise ValidationError({"events": _("Choose at least one event.")})
    unknown = [str(e) for e in events if e not in SUBSCRIBABLE_EVENTS]
    if unknown:
        raise ValidationError(
            {"events": _("Unknown event types: %(types)s.") % {"types": ", ".join(unknown)}}
        )
    return [e for e in SUBSCRIBABLE_EVENTS if e in events]  # one order, no repeats


def endpoint_delete(*, endpoint: WebhookEndpoint) -> None:
    """Delete an endpoint with its delivery log."""
    endpoint.delete()


def endpoint_secret_rotate(*, endpoint: WebhookEndpoint, now: datetime | None = None) -> str:
    """A new secret, returned this once; the current one keeps signing alongside it for
    `ROTATION_OVERLAP`, so receivers can switch without losing a message."""
    now = now or timezone.now()
    secret = signing.secret_new()
    endpoint.previous_secret_ciphertext = endpoint.secret_ciphertext
    endpoint.previous_secret_until = now + ROTATION_OVERLAP
    endpoint.secret_ciphertext = crypto.encrypt(secret)
    endpoint.save(
        update_fields=[
            "previous_secret_ciphertext",
            "previous_secret_until",
            "secret_ciphertext",
            "updated_at",
        ]
    )
    return secret


def endpoint_signing_secrets(*, endpoint: WebhookEndpoint, now: datetime) -> list[str]:
    """The secrets that sign a message now: the current one, and the previous one while its
    overlap lasts."""
    current = [crypto.decrypt(endpoint.secret_ciphertext)]
    overlapping = endpoint.previous_secret_ciphertext and (
        endpoint.previous_secret_until and endpoint.previous_secret_until > now
    )
    return current + ([crypto.decrypt(endpoint.previous_secret_ciphertext)] if overlapping else [])


def endpoint_test_send(*, endpoint: WebhookEndpoint) -> Delivery:
    """Send a test event to this endpoint alone (even a disabled one: a way to check that
    the receiver works again before enabling it)."""
    data = {"message": "This is a test event from Assay.", "endpoint": str(endpoint.public_id)}
    [delivery] = _event_deliver(
        workspace=endpoint.workspace, event_type=EventType.TEST, data=data, to=[endpoint]
    )
    return delivery


def delivery_redeliver(*, delivery: Delivery) -> Delivery:
    """Send a delivery's event again, as a new delivery with fresh attempts; the message id is
    the event's, so a receiver that had it can tell."""
    with transaction.atomic():
        again = _delivery_new(delivery.event, delivery.endpoint)
        transaction.on_commit(lambda: _enqueue([again.pk]))
    return again


# ----------------------------------------------------------------------------- delivering


def delivery_attempt(*, delivery_id: int, now: datetime | None = None) -> bool | None:
    """Attempt a delivery if it is due and nobody holds it: True when the receiver answered
    2xx, False when it did not (a retry is due later, or the delivery failed), None when it
    was not ours to send (done, not due, or claimed)."""
    now = now or timezone.now()
    if not _delivery_claim(delivery_id, now):
        return None
    delivery = Delivery.objects.select_related("endpoint", "event").get(pk=delivery_id)
    status, body, error = _send(delivery, now)
    ok = status is not None and 200 <= status < 300
    _attempt_record(delivery, now=now, ok=ok, status=status, body=body, error=error)
    return ok


def _delivery_claim(delivery_id: int, now: datetime) -> bool:
    due = Q(status=DeliveryStatus.PENDING, next_attempt_at__lte=now)
    abandoned = Q(status=DeliveryStatus.SENDING, claimed_until__lt=now)
    return bool(
        Delivery.objects.filter(due | abandoned, pk=delivery_id).update(
            status=DeliveryStatus.SENDING,
            claimed_until=now + CLAIM,
            attempts=F("attempts") + 1,
            last_attempt_at=now,
        )
    )


def _send(delivery: Delivery, now: datetime) -> tuple[int | None, str, str]:
    """POST the delivery, signed, through the outbound policy: (status, head of the body,
    error)."""
    headers = signing.signed_headers(
        endpoint_signing_secrets(endpoint=delivery.endpoint, now=now),
        message_id=delivery.event.message_id,
        timestamp=int(time.time()),  # the real sending time, whatever `now` a sweep was given
        body=delivery.request_body,
    )
    headers |= {"content-type": "application/json", "user-agent": "Assay-Webhooks/1"}
    return _post(delivery.endpoint.url, delivery.request_body.encode(), headers)


def _post(url: str, body: bytes, headers: dict) -> tuple[int | None, str, str]:
    """One POST, redirects not followed; only the head of the answer is read (a receiver
    streaming without end costs nothing)."""
    import httpx2

    from assay.safety.outbound import refused_in, ssl_context, sync_transport

    policy = outbound_policy(settings.ASSAY_OUTBOUND_ALLOW)
    transport = sync_transport(policy, ssl_context=ssl_context())
    try:
        with httpx2.Client(transport=transport, timeout=settings.ASSAY_WEBHOOK_TIMEOUT_S) as c:
            with c.stream("POST", url, content=body, headers=headers) as response:
                return response.status_code, _head(response), ""
    except Exception as exc:  # a receiver that fails is the answer, never an error of ours
        refused = refused_in(exc)
        return None, "", str(refused) if refused else f"{type(exc).__name__}: {exc}"


def _head(response) -> str:
    """The first RESPONSE_HEAD_CHARS characters of a streamed answer."""
    read = bytearray()
    for chunk in response.iter_bytes():
        read += chunk
        if len(read) >= RESPONSE_HEAD_CHARS * 4:  # enough bytes for that many characters
            break
    return read.decode("utf-8", "replace")[:RESPONSE_HEAD_CHARS]


def _attempt_record(
    delivery: Delivery, *, now: datetime, ok: bool, status, body: str, error: str
) -> None:
    """Store the attempt's answer while the delivery is still ours; then schedule the retry,
    or disable the endpoint when the retries ran out."""
    attempts = delivery.attempts
    retry = not ok and attempts < MAX_ATTEMPTS
    wait = RETRY_DELAYS[attempts - 1] if retry else None
    fields = {
        "status": _status_after(ok=ok, retry=retry),
        "response_status": status,
        "response_body": body,
        "error": cap_text(error, 500),
        "claimed_until": None,
        "next_attempt_at": now + wait if wait else None,
    }
    # only while still ours: a sender that outlived its claim must not overwrite the next one
    mine = Delivery.objects.filter(pk=delivery.pk, status=DeliveryStatus.SENDING, attempts=attempts)
    if not mine.update(**fields):
        return
    if wait and wait <= COUNTDOWN_MAX:
        transaction.on_commit(lambda: _enqueue([delivery.pk], countdown=wait.total_seconds()))
    if not ok and not retry:
        _endpoint_disable_after(delivery, now=now)


def _status_after(*, ok: bool, retry: bool) -> str:
    if ok:
        return DeliveryStatus.SUCCEEDED
    return DeliveryStatus.PENDING if retry else DeliveryStatus.FAILED


def _endpoint_disable_after(delivery: Delivery, *, now: datetime) -> None:
    """A delivery ran out of retries: disable its endpoint, unless another delivery reached it
    since this one was first sent (it works again)."""
    reached = Delivery.objects.filter(
        endpoint_id=delivery.endpoint_id,
        status=DeliveryStatus.SUCCEEDED,
        last_attempt_at__gte=delivery.created_at,
    )
    if reached.exists():
        return
    facts = {"n": delivery.attempts, "last": _delivery_outcome(delivery)}
    when = now.strftime("%Y-%m-%d %H:%M UTC")
    notice = DISABLED_NOTICE % {"when": when, **facts}
    endpoint_disable(endpoint=delivery.endpoint, notice=notice, now=now, facts=facts)


def _delivery_outcome(delivery: Delivery) -> str:
    fresh = Delivery.objects.get(pk=delivery.pk)
    if fresh.response_status is not None:
        return f"HTTP {fresh.response_status}"
    return fresh.error[:200] or "-"


def endpoint_disable(
    *, endpoint: WebhookEndpoint, notice: str, now: datetime, facts: dict | None = None
) -> None:
    """Turn an endpoint off with a notice its page shows (in English; with `facts`, a page
    says it in its reader's language); its waiting deliveries fail (a redelivery or a test
    event still goes, by hand)."""
    updated = WebhookEndpoint.objects.filter(pk=endpoint.pk, enabled=True).update(
        enabled=False,
        disabled_notice=cap_text(notice, 500),
        disabled_facts=facts or {},
        disabled_at=now,
    )
    if updated:
        log.warning("webhook endpoint %s disabled: retries exhausted", endpoint.public_id)
        _waiting_fail(endpoint)


def _waiting_fail(endpoint: WebhookEndpoint) -> None:
    """A disabled endpoint's waiting deliveries fail (one being sent finishes its attempt)."""
    endpoint.deliveries.filter(status=DeliveryStatus.PENDING).update(
        status=DeliveryStatus.FAILED,
        next_attempt_at=None,
        error=_("The endpoint was disabled."),
    )


def deliveries_sweep(*, now: datetime | None = None, limit: int = SWEEP_LIMIT) -> int:
    """Attempt the deliveries that are due and that no task took (a retry after a long wait,
    a lost message, a sender that died): the oldest first, at most `limit`; how many it
    attempted."""
    now = now or timezone.now()
    due = Q(status=DeliveryStatus.PENDING, next_attempt_at__lte=now - SWEEP_GRACE) | Q(
        status=DeliveryStatus.SENDING, claimed_until__lt=now
    )
    ids = list(
        Delivery.objects.filter(due)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(delivery_attempt(delivery_id=pk, now=now) is not None for pk in ids)
