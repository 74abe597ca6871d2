"""Settings → Secrets: an owner states where each secret may be sent; members read it."""

import pytest
from django.urls import reverse

from assay import selectors, services
from assay.models import Membership, Secret

VALUE = "app-token-0123456789abcdef"


def page_url(**query) -> str:
    url = reverse("settings_secrets", kwargs={"ws": "acme"})
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def value_of(workspace, name="APP_TOKEN") -> str:
    (secret,) = selectors.secrets_named(workspace=workspace, names=[name])
    return services.secret_reveal(secret=secret)


def test_an_owner_saves_origins_one_a_line_and_the_page_lists_them(web, workspace):
    origins = "https://App.Example.com/\nhttp://127.0.0.1:8000, https://api.example.com:443"
    answer = web.post(page_url(), {"name": "APP_TOKEN", "value": VALUE, "origins": origins})
    assert answer.status_code == 302, answer.content.decode()
    secret = Secret.objects.get(workspace=workspace, name="APP_TOKEN")
    assert secret.origins == [
        "https://app.example.com",
        "http://127.0.0.1:8000",
        "https://api.example.com",
    ]
    shown = web.get(page_url()).content.decode()
    assert "<code>http://127.0.0.1:8000</code>" in shown and VALUE not in shown


def test_a_secret_without_origins_says_it_is_sent_nowhere(web, workspace):
    services.secret_named_save(workspace=workspace, name="OLD_TOKEN", value=VALUE)
    shown = web.get(page_url()).content.decode()
    assert "none: sent nowhere" in shown


def test_edit_fills_the_form_and_an_empty_value_keeps_the_stored_one(web, workspace):
    services.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=VALUE, origins=["https://a.example"]
    )
    form = web.get(page_url(edit="APP_TOKEN")).content.decode()
    assert 'value="APP_TOKEN"' in form and "https://a.example</textarea>" in form
    more = {"name": "APP_TOKEN", "value": "", "origins": "https://a.example\nhttps://b.example"}
    assert web.post(page_url(), more).status_code == 302
    secret = Secret.objects.get(workspace=workspace, name="APP_TOKEN")
    assert secret.origins == ["https://a.example", "https://b.example"]
    assert value_of(workspace) == VALUE


@pytest.mark.parametrize(
    ("posted", "problem"),
    [
        ({"value": VALUE, "origins": "https://a.example/v1"}, "is not an origin"),
        ({"value": VALUE, "origins": "a.example"}, "is not an origin"),
        ({"value": "", "origins": "https://a.example"}, "Give the secret"),
    ],
)
def test_a_bad_origin_or_a_new_secret_without_value_is_named_and_nothing_saved(
    web, workspace, posted, problem
):
    answer = web.post(page_url(), {"name": "APP_TOKEN", **posted})
    assert answer.status_code == 400
    assert problem in answer.content.decode()
    assert not Secret.objects.filter(workspace=workspace).exclude(name="").exists()


@pytest.mark.parametrize("role", [Membership.Role.EDITOR, Membership.Role.VIEWER])
def test_members_read_the_origins_and_only_owners_change_them(client, member, workspace, role):
    services.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=VALUE, origins=["https://a.example"]
    )
    client.force_login(member("eddie", role))
    shown = client.get(page_url(edit="APP_TOKEN")).content.decode()
    assert "<code>https://a.example</code>" in shown and 'id="secret-form"' not in shown
    posted = {"name": "APP_TOKEN", "value": "", "origins": "https://evil.example"}
    assert client.post(page_url(), posted).status_code == 403
    assert Secret.objects.get(name="APP_TOKEN").origins == ["https://a.example"]


def test_an_outsider_neither_reads_nor_sets_them(client, outsider, workspace):
    services.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=VALUE, origins=["https://a.example"]
    )
    client.force_login(outsider)
    assert client.get(page_url(edit="APP_TOKEN")).status_code == 404
    posted = {"name": "APP_TOKEN", "value": "", "origins": "https://evil.example"}
    assert client.post(page_url(), posted).status_code == 404
    # in their own workspace, the name edits nothing of Acme's
    own = reverse("settings_secrets", kwargs={"ws": "other"})
    assert "https://a.example" not in client.get(own + "?edit=APP_TOKEN").content.decode()
    assert client.post(own, posted).status_code == 400  # a new secret there needs a value
    assert Secret.objects.get(name="APP_TOKEN").origins == ["https://a.example"]
