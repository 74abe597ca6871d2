"""Deliveries against a real local receiver: Standard Webhooks signatures checked with the
reference verification (the `standardwebhooks` package), retries on a backoff driven by
calling the sweep with a later `now`, disabling when they run out, claims, redelivery, the
outbound policy, and secrets kept out of logs."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from standardwebhooks import Webhook, WebhookVerificationError

from assay.vocabulary import EventType
from notifications import services
from notifications.models import Delivery, DeliveryStatus, WebhookEndpoint
from notifications.services import (
    MAX_ATTEMPTS,
    RETRY_DELAYS,
    SWEEP_GRACE,
    deliveries_sweep,
    delivery_attempt,
    delivery_redeliver,
    endpoint_create,
    endpoint_secret_rotate,
    event_emit,
)
from tests.notifications.receiver import Receiver

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver():
    with Receiver(200) as server:
        yield server


def _endpoint(workspace, user, url, events=(EventType.EXPERIMENT_COMPLETED,), **fields):
    return endpoint_create(workspace=workspace, user=user, url=url, events=list(events), **fields)


def _emit(workspace, **data) -> Delivery:
    event_emit(workspace=workspace, event_type=EventType.EXPERIMENT_COMPLETED, data=data)
    return Delivery.objects.latest("pk")


def test_a_delivery_verifies_with_the_reference_implementation(workspace, user, receiver):
    endpoint, secret = _endpoint(workspace, user, receiver.url)
    assert secret.startswith("whsec_")
    delivery = _emit(workspace, experiment="e1", name="nightly")
    assert delivery_attempt(delivery_id=delivery.pk) is True
    [got] = receiver.received
    payload = Webhook(secret).verify(got.body, got.headers)
    assert payload["type"] == "experiment.completed"
    assert payload["data"] == {"experiment": "e1", "name": "nightly"}
    assert got.headers["webhook-id"] == delivery.event.message_id
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("succeeded", 1, 200)
    assert delivery.response_body == "ok"
    with pytest.raises(WebhookVerificationError):
        Webhook("whsec_" + "A" * 43 + "=").verify(got.body, got.headers)


def test_a_rotated_secret_signs_alongside_the_new_one_for_a_day(workspace, user, receiver):
    endpoint, old = _endpoint(workspace, user, receiver.url)
    new = endpoint_secret_rotate(endpoint=endpoint)
    assert new != old
    delivery_attempt(delivery_id=_emit(workspace).pk)
    got = receiver.received[-1]
    assert len(got.headers["webhook-signature"].split(" ")) == 2
    Webhook(old).verify(got.body, got.headers)
    Webhook(new).verify(got.body, got.headers)
    later = timezone.now() + timedelta(hours=24, minutes=1)
    delivery_attempt(delivery_id=_emit(workspace).pk, now=later)
    got = receiver.received[-1]
    assert len(got.headers["webhook-signature"].split(" ")) == 1
    Webhook(new).verify(got.body, got.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(old).verify(got.body, got.headers)


def test_failures_are_retried_on_the_backoff_until_the_receiver_answers(workspace, user):
    with Receiver(500, 503, 404, 200) as receiver:
        endpoint, secret = _endpoint(workspace, user, receiver.url)
        delivery = _emit(workspace)
        start = timezone.now()
        assert delivery_attempt(delivery_id=delivery.pk, now=start) is False
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.PENDING
        assert delivery.next_attempt_at == start + RETRY_DELAYS[0]
        # not due yet: the sweep leaves it
        assert deliveries_sweep(now=start + RETRY_DELAYS[0] - timedelta(seconds=1)) == 0
        now = start
        for delay in RETRY_DELAYS[:3]:
            now += delay + SWEEP_GRACE
            assert deliveries_sweep(now=now) == 1
        delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.response_status) == ("succeeded", 4, 200)
    assert [r.headers["webhook-id"] for r in receiver.received] == [delivery.event.message_id] * 4
    for got in receiver.received:
        Webhook(secret).verify(got.body, got.headers)


def test_a_receiver_that_never_answers_2xx_gets_its_endpoint_disabled(workspace, user):
    with Receiver(500, answer=b"x" * 10_000) as receiver:
        endpoint, _ = _endpoint(workspace, user, receiver.url)
        delivery = _emit(workspace)
        now = timezone.now()
        delivery_attempt(delivery_id=delivery.pk, now=now)
        for delay in RETRY_DELAYS:
            now += delay + SWEEP_GRACE
            assert deliveries_sweep(now=now) == 1
        assert deliveries_sweep(now=now + timedelta(days=2)) == 0  # nothing left to try
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, MAX_ATTEMPTS)
    assert len(receiver.received) == MAX_ATTEMPTS
    assert len(delivery.response_body) == services.RESPONSE_HEAD_CHARS  # the head only
    endpoint.refresh_from_db()
    assert not endpoint.enabled and "HTTP 500" in endpoint.disabled_notice
    # a disabled endpoint hears nothing more
    event_emit(workspace=workspace, event_type=EventType.EXPERIMENT_COMPLETED, data={})
    assert Delivery.objects.count() == 1


def test_a_timeout_is_a_failure_retried_later(workspace, user, settings):
    settings.ASSAY_WEBHOOK_TIMEOUT_S = 0.3
    with Receiver("hang:1", 200) as receiver:
        _endpoint(workspace, user, receiver.url)
        delivery = _emit(workspace)
        assert delivery_attempt(delivery_id=delivery.pk) is False
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.PENDING and delivery.response_status is None
        assert "Timeout" in delivery.error


def test_a_delivery_is_sent_once_however_often_it_is_attempted(workspace, user, receiver):
    _endpoint(workspace, user, receiver.url)
    delivery = _emit(workspace)
    assert delivery_attempt(delivery_id=delivery.pk) is True
    assert delivery_attempt(delivery_id=delivery.pk) is None  # done: not ours to send
    assert deliveries_sweep(now=timezone.now() + timedelta(days=1)) == 0
    assert len(receiver.received) == 1


def test_a_delivery_whose_sender_died_is_taken_again_by_the_sweep(workspace, user, receiver):
    _endpoint(workspace, user, receiver.url)
    delivery = _emit(workspace)
    now = timezone.now()
    # a sender claimed it and died before answering
    assert services._delivery_claim(delivery.pk, now)
    assert delivery_attempt(delivery_id=delivery.pk, now=now) is None  # still held
    assert deliveries_sweep(now=now + services.CLAIM + timedelta(seconds=1)) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, len(receiver.received)) == ("succeeded", 2, 1)


def test_a_lost_message_is_sent_by_the_sweep(workspace, user, receiver):
    _endpoint(workspace, user, receiver.url)
    delivery = _emit(workspace)  # its task message never ran
    assert deliveries_sweep(now=timezone.now() + SWEEP_GRACE + timedelta(seconds=1)) == 1
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED and len(receiver.received) == 1


def test_redelivery_sends_the_event_again_with_its_id(workspace, user, receiver):
    endpoint, secret = _endpoint(workspace, user, receiver.url)
    first = _emit(workspace, run="r1")
    delivery_attempt(delivery_id=first.pk)
    again = delivery_redeliver(delivery=first)
    assert again.pk != first.pk and again.status == DeliveryStatus.PENDING
    assert delivery_attempt(delivery_id=again.pk) is True
    one, two = receiver.received
    assert one.headers["webhook-id"] == two.headers["webhook-id"]
    assert Webhook(secret).verify(two.body, two.headers)["data"] == {"run": "r1"}
    assert endpoint.deliveries.count() == 2


def test_the_outbound_policy_applies_when_saved_and_when_sent(workspace, user, receiver, settings):
    endpoint, _ = _endpoint(workspace, user, receiver.url)
    delivery = _emit(workspace)
    settings.ASSAY_OUTBOUND_ALLOW = "public"
    with pytest.raises(ValidationError) as refused:
        _endpoint(workspace, user, receiver.url)
    assert "url" in refused.value.message_dict
    assert delivery_attempt(delivery_id=delivery.pk) is False
    delivery.refresh_from_db()
    assert "not allowed" in delivery.error and not receiver.received


def test_secrets_are_encrypted_at_rest_and_never_logged(workspace, user, receiver, caplog):
    caplog.set_level(logging.DEBUG)
    endpoint, secret = _endpoint(workspace, user, receiver.url)
    rotated = endpoint_secret_rotate(endpoint=endpoint)
    delivery_attempt(delivery_id=_emit(workspace).pk)
    stored = WebhookEndpoint.objects.filter(pk=endpoint.pk).values().get()
    for value in (secret, rotated, secret.removeprefix("whsec_")):
        assert value not in json.dumps(stored, default=str)
        assert value not in caplog.text
    assert value not in repr(endpoint) and value not in str(endpoint)


@pytest.fixture
def broker_down():
    """The Celery broker unreachable (a closed local port), publishing without retries."""
    from assay.celery import app
    from tests.support.fixtures import reset_broker_pools

    keys = ("broker_url", "broker_transport_options", "task_publish_retry")
    saved = {key: app.conf[key] for key in keys}
    app.conf.update(
        broker_url="redis://127.0.0.1:9/0",
        broker_transport_options={},
        task_publish_retry=False,
    )
    reset_broker_pools(app)
    yield
    app.conf.update(saved)
    reset_broker_pools(app)


def test_a_refused_message_loses_no_delivery(workspace, user, receiver, broker_down):
    _endpoint(workspace, user, receiver.url)
    with transaction.atomic():  # the caller's transaction commits whatever the broker does
        event_emit(workspace=workspace, event_type=EventType.EXPERIMENT_COMPLETED, data={})
    delivery = Delivery.objects.get()
    assert delivery.status == DeliveryStatus.PENDING
    assert deliveries_sweep(now=timezone.now() + SWEEP_GRACE + timedelta(seconds=1)) == 1
    assert len(receiver.received) == 1


def test_only_the_head_of_an_endless_answer_is_read(workspace, user):
    with Receiver("endless") as receiver:
        _endpoint(workspace, user, receiver.url)
        delivery = _emit(workspace)
        assert delivery_attempt(delivery_id=delivery.pk) is True
    delivery.refresh_from_db()
    assert delivery.response_body == "x" * services.RESPONSE_HEAD_CHARS
    assert receiver.written < 32 * 1024 * 1024  # it hung up long before the end


def test_disabling_an_endpoint_stops_its_waiting_retries(workspace, user):
    with Receiver(500, 200, 200) as receiver:
        endpoint, _ = _endpoint(workspace, user, receiver.url)
        delivery = _emit(workspace)
        now = timezone.now()
        assert delivery_attempt(delivery_id=delivery.pk, now=now) is False  # a retry waits
        services.endpoint_update(endpoint=endpoint, enabled=False)  # the owner turns it off
        assert deliveries_sweep(now=now + RETRY_DELAYS[0] + SWEEP_GRACE) == 0
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.FAILED and delivery.next_attempt_at is None
        assert len(receiver.received) == 1
        # a test event still reaches a disabled endpoint: how an owner checks it again
        test = services.endpoint_test_send(endpoint=endpoint)
        assert delivery_attempt(delivery_id=test.pk) is True
