"""/api/v1/webhooks/: owners write, members read (the URL's host only), outsiders see nothing;
the secret is in the creating (and rotating) answer only; test events, the delivery log and
redelivery."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from assay import services as platform
from assay.models import Membership
from notifications.models import Delivery
from notifications.services import delivery_attempt
from tests.notifications.receiver import Receiver

pytestmark = pytest.mark.django_db(transaction=True)

BODY = {"url": "", "events": ["experiment.completed", "import.failed"], "format": "slack"}


def _client(workspace, account) -> APIClient:
    issued = platform.token_issue(workspace=workspace, user=account, name="t")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {issued.key}")
    return client


@pytest.fixture
def receiver():
    with Receiver(200, answer=b'{"ok": true}') as server:
        yield server


@pytest.fixture
def created(api, receiver):
    response = api.post("/api/v1/webhooks/", {**BODY, "url": receiver.url}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_the_secret_is_shown_once_and_never_again(api, created, receiver):
    secret = created["secret"]
    assert secret.startswith("whsec_") and created["url"] == receiver.url
    assert created["events"] == ["experiment.completed", "import.failed"]
    base = f"/api/v1/webhooks/{created['id']}/"
    test = api.post(base + "test/")
    assert test.status_code == 202 and test.json()["event_type"] == "webhook.test"
    delivery_attempt(delivery_id=Delivery.objects.get().pk)
    rotated = api.post(base + "rotate-secret/")
    assert rotated.status_code == 200 and rotated.json()["secret"] != secret
    answers = [
        api.get("/api/v1/webhooks/"),
        api.get(base),
        api.get(base + "deliveries/"),
        api.patch(base, {"description": "ops channel"}, format="json"),
    ]
    for answer in answers:
        assert answer.status_code == 200, answer.content
        text = answer.content.decode()
        assert "secret" not in json.loads(text) and secret not in text
        assert rotated.json()["secret"] not in text
        assert secret.removeprefix("whsec_") not in text


def test_the_delivery_log_and_redelivery(api, created, receiver):
    base = f"/api/v1/webhooks/{created['id']}/"
    sent = api.post(base + "test/").json()
    assert sent["status"] == "pending" and sent["attempts"] == 0
    delivery_attempt(delivery_id=Delivery.objects.get().pk)
    [logged] = api.get(base + "deliveries/").json()["results"]
    assert (logged["status"], logged["attempts"], logged["response_status"]) == (
        "succeeded",
        1,
        200,
    )
    assert logged["response_body"] == '{"ok": true}'
    assert json.loads(logged["request_body"])["blocks"][0]["text"]["text"] == ("Assay: Test event")
    again = api.post(base + f"deliveries/{logged['id']}/redeliver/")
    assert again.status_code == 202 and again.json()["message_id"] == logged["message_id"]
    assert api.get(base + "deliveries/").json()["count"] == 2


def test_bad_bodies_name_their_field(api, receiver):
    for body, field in [
        ({**BODY, "url": "ftp://x"}, "url"),
        ({**BODY, "url": receiver.url, "events": []}, "events"),
        ({**BODY, "url": receiver.url, "events": ["webhook.test"]}, "events"),
        ({**BODY, "url": receiver.url, "format": "teams"}, "format"),
        ({**BODY, "url": receiver.url, "secret": "whsec_mine"}, "secret"),
    ]:
        response = api.post("/api/v1/webhooks/", body, format="json")
        assert response.status_code == 400, (body, response.content)
        assert field in response.content.decode()


@pytest.mark.parametrize("role", [Membership.Role.EDITOR, Membership.Role.VIEWER])
def test_other_members_read_the_host_only_and_write_nothing(workspace, member, created, role):
    client = _client(workspace, member("bob", role))
    base = f"/api/v1/webhooks/{created['id']}/"
    [listed] = client.get("/api/v1/webhooks/").json()["results"]
    assert listed["url"] == "http://127.0.0.1:{}/…".format(created["url"].split(":")[2][:-5])
    assert client.get(base + "deliveries/").status_code == 200
    writes = [
        client.post("/api/v1/webhooks/", {**BODY, "url": created["url"]}, format="json"),
        client.patch(base, {"enabled": False}, format="json"),
        client.post(base + "rotate-secret/"),
        client.post(base + "test/"),
        client.delete(base),
    ]
    assert [w.status_code for w in writes] == [403] * 5
    assert not Delivery.objects.exists()


def test_outsiders_see_no_webhook_of_acme(api, outsider, created):
    mine = _client(outsider.memberships.get().workspace, outsider)
    base = f"/api/v1/webhooks/{created['id']}/"
    assert mine.get("/api/v1/webhooks/").json()["count"] == 0
    for answer in (
        mine.get(base),
        mine.get(base + "deliveries/"),
        mine.post(base + "test/"),
        mine.post(base + "rotate-secret/"),
        mine.delete(base),
    ):
        assert answer.status_code == 404


def test_a_delivery_of_another_endpoint_is_not_found(api, created, receiver):
    other = api.post("/api/v1/webhooks/", {**BODY, "url": receiver.url}, format="json").json()
    sent = api.post(f"/api/v1/webhooks/{other['id']}/test/").json()
    answer = api.post(f"/api/v1/webhooks/{created['id']}/deliveries/{sent['id']}/redeliver/")
    assert answer.status_code == 404
