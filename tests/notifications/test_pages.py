"""Settings → Webhooks pages: owners add one (its secret shown once), send a test event, read
the delivery log, redeliver, rotate the secret, see why Assay disabled one; other members read
the host only; outsiders get 404; untrusted text is escaped."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from assay.models import Membership
from notifications.models import Delivery, WebhookEndpoint
from notifications.services import delivery_attempt, endpoint_create, endpoint_disable
from tests.notifications.receiver import Receiver

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def receiver():
    with Receiver(500, 200, answer=b"<b>busy</b>") as server:
        yield server


def _list(ws="acme"):
    return reverse("settings_webhooks", kwargs={"ws": ws})


def _page(endpoint, name="settings_webhook", ws="acme", **kwargs):
    return reverse(name, kwargs={"ws": ws, "webhook_id": endpoint.public_id, **kwargs})


def test_an_owner_adds_a_webhook_and_sees_its_secret_once(web, receiver):
    form = {
        "url": receiver.url,
        "format": "feishu",
        "events": ["experiment.failed", "import.failed"],
        "description": "<script>alert(1)</script>",
    }
    answer = web.post(_list(), form)
    assert answer.status_code == 200
    html = answer.content.decode()
    endpoint = WebhookEndpoint.objects.get()
    secret_start = html.index("whsec_")
    secret = html[secret_start : html.index("<", secret_start)]
    assert len(secret) > 40 and endpoint.events == ["experiment.failed", "import.failed"]
    again = web.get(_list()).content.decode()
    assert secret not in again and "whsec_" not in again
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in again and "<script>alert" not in again


def test_a_bad_url_is_named_on_its_field(web):
    form = {"url": "ftp://x", "format": "generic", "events": ["alert.fired"]}
    html = web.post(_list(), form).content.decode()
    field = html[html.index('id="id_url"') - 400 : html.index('id="id_url"') + 400]
    assert "has-error" in field and "Enter a valid URL." in field
    assert not WebhookEndpoint.objects.exists()


def test_test_event_log_redeliver_and_rotation(web, workspace, user, receiver):
    endpoint, secret = endpoint_create(
        workspace=workspace, user=user, url=receiver.url, events=["alert.fired"]
    )
    assert web.post(_page(endpoint, "settings_webhook_test")).status_code == 302
    delivery = Delivery.objects.get()
    delivery_attempt(delivery_id=delivery.pk)  # the receiver answers 500 first
    html = web.get(_page(endpoint)).content.decode()
    assert "HTTP 500" in html and "&lt;b&gt;busy&lt;/b&gt;" in html and "<b>busy" not in html
    assert delivery.event.message_id in html and "Test event" in html
    redeliver = _page(endpoint, "settings_webhook_redeliver", delivery_id=delivery.public_id)
    assert web.post(redeliver).status_code == 302
    assert endpoint.deliveries.count() == 2
    rotated = web.post(_page(endpoint, "settings_webhook_rotate")).content.decode()
    start = rotated.index("whsec_")
    new = rotated[start : rotated.index("<", start)]
    assert new != secret and new not in web.get(_page(endpoint)).content.decode()
    assert secret not in rotated


def test_the_page_says_why_assay_disabled_a_webhook_and_enabling_clears_it(
    web, workspace, user, receiver
):
    endpoint, _ = endpoint_create(
        workspace=workspace, user=user, url=receiver.url, events=["alert.fired"]
    )
    endpoint_disable(endpoint=endpoint, notice="a delivery failed 8 times", now=timezone.now())
    html = web.get(_page(endpoint)).content.decode()
    assert "Assay disabled this webhook." in html and "a delivery failed 8 times" in html
    form = {"url": receiver.url, "format": "generic", "events": ["alert.fired"], "enabled": "on"}
    assert web.post(_page(endpoint), form).status_code == 302
    endpoint.refresh_from_db()
    assert endpoint.enabled and endpoint.disabled_notice == ""
    assert "Assay disabled" not in web.get(_page(endpoint)).content.decode()


@pytest.mark.parametrize("role", [Membership.Role.EDITOR, Membership.Role.VIEWER])
def test_other_members_read_the_host_only_and_change_nothing(
    workspace, user, member, receiver, role
):
    endpoint, _ = endpoint_create(
        workspace=workspace, user=user, url=receiver.url + "/T0KEN", events=["alert.fired"]
    )
    client = Client()
    client.force_login(member("bob", role))
    for url in (_list(), _page(endpoint)):
        html = client.get(url).content.decode()
        assert "T0KEN" not in html and f"127.0.0.1:{receiver.port}/…" in html
        assert "Send test event" not in html
    for url in (_page(endpoint, "settings_webhook_test"), _page(endpoint), _list()):
        assert client.post(url, {}).status_code == 403
    assert not Delivery.objects.exists()


def test_outsiders_get_404(workspace, user, outsider, receiver):
    endpoint, _ = endpoint_create(
        workspace=workspace, user=user, url=receiver.url, events=["alert.fired"]
    )
    client = Client()
    client.force_login(outsider)
    for ws in ("acme", "other"):
        assert client.get(_page(endpoint, ws=ws)).status_code == 404
        assert client.post(_page(endpoint, "settings_webhook_test", ws=ws)).status_code == 404
    assert "127.0.0.1" not in client.get(_list("other")).content.decode()


def test_the_disabled_notice_is_in_the_readers_language(web, workspace, user, receiver):
    endpoint, _ = endpoint_create(
        workspace=workspace, user=user, url=receiver.url, events=["alert.fired"]
    )
    endpoint_disable(
        endpoint=endpoint,
        notice="Disabled: a delivery failed 8 times",
        now=timezone.now(),
        facts={"n": 8, "last": "HTTP 500"},
    )
    html = web.get(_page(endpoint), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "Assay 已停用此 Webhook。" in html
    assert "一次投递在约一天内失败了 8 次（最后一次：HTTP 500）" in html
    english = web.get(_page(endpoint), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "a delivery failed 8 times over about a day (last: HTTP 500)" in english
