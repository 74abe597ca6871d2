"""event_emit: an event and a delivery per enabled endpoint subscribed to its type, queued
once the caller's transaction commits."""

from __future__ import annotations

import pytest

from assay.vocabulary import EventType
from notifications.models import Delivery, DeliveryStatus, Event
from notifications.services import endpoint_create, endpoint_update, event_emit


def _endpoint(workspace, user, events, **fields):
    endpoint, _secret = endpoint_create(
        workspace=workspace, user=user, url="http://127.0.0.1:9/hook", events=events, **fields
    )
    return endpoint


def test_an_event_is_delivered_to_each_subscribed_enabled_endpoint(
    workspace, user, django_capture_on_commit_callbacks
):
    listening = _endpoint(workspace, user, [EventType.EXPERIMENT_COMPLETED])
    _endpoint(workspace, user, [EventType.IMPORT_FAILED])  # another type
    off = _endpoint(workspace, user, [EventType.EXPERIMENT_COMPLETED])
    endpoint_update(endpoint=off, enabled=False)
    with django_capture_on_commit_callbacks() as queued:
        event_emit(
            workspace=workspace,
            event_type=EventType.EXPERIMENT_COMPLETED,
            data={"experiment": "e1", "name": "nightly"},
        )
    [delivery] = Delivery.objects.all()
    assert delivery.endpoint == listening and delivery.status == DeliveryStatus.PENDING
    assert delivery.event.data == {"experiment": "e1", "name": "nightly"}
    assert '"type":"experiment.completed"' in delivery.request_body
    assert len(queued) == 1  # sent after commit, not before


def test_nothing_is_recorded_when_no_endpoint_listens(workspace, user):
    _endpoint(workspace, user, [EventType.IMPORT_FAILED])
    event_emit(workspace=workspace, event_type=EventType.IMPORT_FINISHED, data={})
    assert not Event.objects.exists() and not Delivery.objects.exists()


def test_an_unknown_event_type_is_refused(workspace):
    with pytest.raises(ValueError, match="unknown event type"):
        event_emit(workspace=workspace, event_type="experiment.exploded", data={})


def test_another_workspaces_endpoints_hear_nothing(workspace, user, outsider):
    other = outsider.memberships.get().workspace
    _endpoint(other, outsider, [EventType.EXPERIMENT_FAILED])
    event_emit(workspace=workspace, event_type=EventType.EXPERIMENT_FAILED, data={})
    assert not Delivery.objects.exists()


def test_beat_sweeps_deliveries_with_a_registered_task(settings):
    from assay.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["webhook-deliveries"]
    app.loader.import_default_modules()
    assert entry["task"] in app.tasks and entry["schedule"] <= 60
