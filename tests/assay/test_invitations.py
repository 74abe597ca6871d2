"""Owners invite a colleague with a one-time link: it expires, works once, binds to its
workspace and role, and the invitee makes an account (or signs in) on the page it opens
(issue 28)."""

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from assay import selectors, services
from assay.models import Invitation, Membership

pytestmark = pytest.mark.django_db
User = get_user_model()
NEW_PASSWORD = "a-long-unusual-passphrase-42"


def _key_of(link: str) -> str:
    return link.rstrip("/").rsplit("/", 1)[-1]


def _signup(client, key, username="li.wei"):
    return client.post(
        reverse("invitation", kwargs={"key": key}),
        {"username": username, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )


def test_an_owner_creates_a_link_that_is_shown_once_and_stored_as_a_hash(web, workspace):
    page = web.post(reverse("settings_invite", kwargs={"ws": "acme"}), {"role": "viewer"})
    html = page.content.decode()
    assert page.status_code == 200 and 'id="invite-link"' in html
    link = html.split('id="invite-link">', 1)[1].split("<", 1)[0]
    key = _key_of(link)
    invitation = Invitation.objects.get()
    assert key.startswith("inv_") and key not in invitation.key_hash
    assert invitation.role == "viewer" and invitation.workspace == workspace
    assert key not in web.get(reverse("settings_members", kwargs={"ws": "acme"})).content.decode()


def test_the_members_page_says_how_to_invite(web):
    html = web.get(reverse("settings_members", kwargs={"ws": "acme"})).content.decode()
    assert "Invite a colleague" in html and "works once" in html


def test_a_newcomer_makes_an_account_and_joins_with_the_role(client, workspace, user):
    issued = services.invitation_create(workspace=workspace, user=user, role="editor")
    opened = client.get(reverse("invitation", kwargs={"key": issued.key}))
    assert opened.status_code == 200 and "Join Acme" in opened.content.decode()
    response = _signup(client, issued.key)
    assert response.status_code == 302 and response["Location"] == "/w/acme/evaluators/"
    newcomer = User.objects.get(username="li.wei")
    assert newcomer.check_password(NEW_PASSWORD)
    assert Membership.objects.get(workspace=workspace, user=newcomer).role == "editor"
    assert client.get("/w/acme/evaluators/").status_code == 200  # signed in


def test_a_link_works_once(client, workspace, user):
    issued = services.invitation_create(workspace=workspace, user=user, role="editor")
    _signup(client, issued.key)
    client.logout()
    again = _signup(client, issued.key, username="intruder")
    assert again.status_code == 404 and not User.objects.filter(username="intruder").exists()
    with pytest.raises(Exception, match="used, withdrawn or has expired"):
        services.invitation_accept(invitation=issued.invitation, user=user)


def test_an_expired_or_withdrawn_link_does_nothing(client, workspace, user):
    old = services.invitation_create(workspace=workspace, user=user, role="owner")
    Invitation.objects.filter(pk=old.invitation.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    withdrawn = services.invitation_create(workspace=workspace, user=user, role="owner")
    services.invitation_revoke(invitation=withdrawn.invitation)
    for key in (old.key, withdrawn.key, "inv_not-a-real-key", "nonsense"):
        assert client.get(reverse("invitation", kwargs={"key": key})).status_code == 404
        assert _signup(client, key, username="late").status_code == 404
    assert not User.objects.filter(username="late").exists()
    assert list(selectors.invitations_pending(workspace=workspace)) == []


def test_a_signed_in_person_joins_with_one_click(client, workspace, user, outsider):
    issued = services.invitation_create(workspace=workspace, user=user, role="viewer")
    client.force_login(outsider)
    assert client.get("/w/acme/evaluators/").status_code == 404
    response = client.post(reverse("invitation", kwargs={"key": issued.key}))
    assert response.status_code == 302
    assert Membership.objects.get(workspace=workspace, user=outsider).role == "viewer"
    assert client.get("/w/acme/evaluators/").status_code == 200


def test_a_taken_username_or_weak_password_is_named_and_nothing_is_used_up(client, workspace, user):
    issued = services.invitation_create(workspace=workspace, user=user, role="editor")
    taken = _signup(client, issued.key, username="alice")
    assert taken.status_code == 400 and "username" in taken.content.decode().lower()
    weak = client.post(
        reverse("invitation", kwargs={"key": issued.key}),
        {"username": "bo", "password1": "123", "password2": "123"},
    )
    assert weak.status_code == 400 and "too short" in weak.content.decode()
    assert selectors.invitation_by_key(key=issued.key) is not None
    assert workspace.memberships.count() == 1


def test_only_owners_invite_and_withdraw(client, member, workspace, user):
    issued = services.invitation_create(workspace=workspace, user=user, role="owner")
    client.force_login(member("ed", role="editor"))
    assert (
        client.post(
            reverse("settings_invite", kwargs={"ws": "acme"}), {"role": "owner"}
        ).status_code
        == 403
    )
    withdraw = reverse(
        "settings_invitation_revoke",
        kwargs={"ws": "acme", "invitation_id": issued.invitation.public_id},
    )
    assert client.post(withdraw).status_code == 403
    assert Invitation.objects.count() == 1
    assert selectors.invitation_by_key(key=issued.key) is not None


def test_a_bad_role_is_refused(web):
    page = web.post(reverse("settings_invite", kwargs={"ws": "acme"}), {"role": "god"})
    assert page.status_code == 400 and not Invitation.objects.exists()


def test_an_invitation_binds_to_its_own_workspace(client, workspace, user, outsider):
    other = outsider.memberships.get().workspace
    issued = services.invitation_create(workspace=other, user=outsider, role="owner")
    client.force_login(user)
    client.post(reverse("invitation", kwargs={"key": issued.key}))
    assert Membership.objects.get(workspace=other, user=user).role == "owner"
    assert Membership.objects.get(workspace=workspace, user=user).role == "owner"
    assert workspace.memberships.count() == 1


def test_the_api_invites_lists_and_withdraws(api, workspace, client):
    made = api.post("/api/v1/invitations/", {"role": "viewer"}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["role"] == "viewer" and "/invite/inv_" in body["url"]
    listed = api.get("/api/v1/invitations/").json()["results"]
    assert [i["id"] for i in listed] == [body["id"]] and "url" not in listed[0]
    assert api.delete(f"/api/v1/invitations/{body['id']}/").status_code == 204
    assert client.get(body["url"].split("testserver", 1)[-1]).status_code == 404
    assert api.get("/api/v1/invitations/").json()["results"] == []
    bad = api.post("/api/v1/invitations/", {"role": "god"}, format="json")
    assert bad.status_code == 400 and "role" in bad.json()["error"]["details"]


def test_the_api_shows_no_invitations_to_editors(workspace, user, member, api_client_for):
    services.invitation_create(workspace=workspace, user=user, role="owner")
    editor = api_client_for(workspace, member("ed", role="editor"))
    assert editor.get("/api/v1/invitations/").json()["results"] == []
    assert editor.post("/api/v1/invitations/", {"role": "owner"}, format="json").status_code == 403


def test_an_owner_withdraws_an_invitation_on_the_page(web, workspace, user, client):
    issued = services.invitation_create(workspace=workspace, user=user, role="editor")
    page = web.get(reverse("settings_members", kwargs={"ws": "acme"})).content.decode()
    withdraw = reverse(
        "settings_invitation_revoke",
        kwargs={"ws": "acme", "invitation_id": issued.invitation.public_id},
    )
    assert f'action="{withdraw}"' in page
    assert web.post(withdraw).status_code == 302
    assert selectors.invitation_by_key(key=issued.key) is None
    assert (
        'id="invitations"'
        not in web.get(reverse("settings_members", kwargs={"ws": "acme"})).content.decode()
    )
