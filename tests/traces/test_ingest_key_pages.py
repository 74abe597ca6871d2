"""Settings → Ingest keys: owners create a key (shown once, with the exporter's environment
lines) and revoke it; other members see the list only; outsiders get 404."""

import re

import pytest
from django.urls import reverse

from assay.models import Workspace
from traces.models import IngestKey
from traces.services import ingest_key_issue

from .support import export, post, span

pytestmark = pytest.mark.django_db


def page(workspace) -> str:
    return reverse("settings_ingest_keys", kwargs={"ws": workspace.slug})


def revoke_url(workspace, key: IngestKey) -> str:
    kwargs = {"ws": workspace.slug, "ingest_key_id": key.public_id}
    return reverse("settings_ingest_key_revoke", kwargs=kwargs)


def test_an_owner_creates_a_key_shown_once_with_the_exporter_lines(web, client, workspace):
    answer = web.post(page(workspace), {"name": "checkout <b>service</b>"})
    html = answer.content.decode()
    assert answer.status_code == 200
    key = re.search(r'id="new-ingest-key">(asy_ingest_[\w-]+)<', html).group(1)
    assert "OTEL_EXPORTER_OTLP_ENDPOINT=http://testserver/otlp" in html
    assert f"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20{key}" in html
    assert 'data-copy="#new-ingest-key"' in html and 'data-copy="#otel-environment"' in html
    assert "checkout &lt;b&gt;service&lt;/b&gt;" in html and "<b>service" not in html
    stored = IngestKey.objects.get()
    assert stored.workspace == workspace and stored.prefix == key[:15]
    assert key not in web.get(page(workspace)).content.decode()  # shown once

    assert post(client, export(span(1)).SerializeToString(), key).status_code == 200
    listed = web.get(page(workspace)).content.decode()
    assert "checkout &lt;b&gt;service" in listed and f"{stored.prefix}…" in listed
    stored.refresh_from_db()
    assert stored.last_used_at is not None


def test_an_empty_name_is_refused_on_its_field(web, workspace):
    answer = web.post(page(workspace), {"name": "  "})
    assert answer.status_code == 200 and not IngestKey.objects.exists()
    assert "new-ingest-key" not in answer.content.decode()


def test_an_owner_revokes_a_key_and_the_endpoint_refuses_it(web, client, workspace):
    issued = ingest_key_issue(workspace=workspace, name="old")
    answer = web.post(revoke_url(workspace, issued.ingest_key), follow=True)
    assert "revoked" in answer.content.decode()
    assert not IngestKey.objects.get().is_active
    assert post(client, export(span(1)).SerializeToString(), issued.key).status_code == 403


@pytest.mark.parametrize("role", ["editor", "viewer"])
def test_other_members_see_the_list_but_neither_create_nor_revoke(client, member, workspace, role):
    issued = ingest_key_issue(workspace=workspace, name="prod exporter")
    client.force_login(member("erin", role=role))
    listed = client.get(page(workspace)).content.decode()
    assert "prod exporter" in listed
    assert "Create ingest key" not in listed and "/revoke/" not in listed
    assert client.post(page(workspace), {"name": "mine"}).status_code == 403
    assert client.post(revoke_url(workspace, issued.ingest_key)).status_code == 403
    assert IngestKey.objects.count() == 1 and IngestKey.objects.get().is_active


def test_outsiders_get_404_and_never_revoke_anothers_key(client, outsider, workspace):
    issued = ingest_key_issue(workspace=workspace, name="acme exporter")
    client.force_login(outsider)
    assert client.get(page(workspace)).status_code == 404
    assert client.post(page(workspace), {"name": "x"}).status_code == 404
    assert client.post(revoke_url(workspace, issued.ingest_key)).status_code == 404
    other = Workspace.objects.get(slug="other")
    assert client.post(revoke_url(other, issued.ingest_key)).status_code == 404  # foreign id
    assert "acme exporter" not in client.get(page(other)).content.decode()
    assert IngestKey.objects.get().is_active and IngestKey.objects.count() == 1
