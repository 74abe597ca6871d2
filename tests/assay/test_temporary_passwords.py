"""Owners may create a colleague's account with a temporary password, which must be changed
at the first sign-in before any workspace page opens (issue 28)."""

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from assay import selectors, services
from assay.models import Membership

pytestmark = pytest.mark.django_db
User = get_user_model()
CREATE = reverse("settings_member_create", kwargs={"ws": "acme"})
MINE = "a-long-unusual-passphrase-42"


def test_an_owner_creates_an_account_shown_once(web, workspace):
    page = web.post(CREATE, {"new-username": "li.wei", "new-role": "viewer"})
    html = page.content.decode()
    assert page.status_code == 200 and 'id="temporary-password"' in html
    password = html.split('id="temporary-password">', 1)[1].split("<", 1)[0]
    user = User.objects.get(username="li.wei")
    assert len(password) >= 16 and user.check_password(password)
    assert Membership.objects.get(workspace=workspace, user=user).role == "viewer"
    assert selectors.password_change_required(user=user)
    assert (
        password not in web.get(reverse("settings_members", kwargs={"ws": "acme"})).content.decode()
    )


def test_the_first_sign_in_must_change_the_password(client, workspace):
    issued = services.member_create_with_password(workspace=workspace, username="li", role="editor")
    client.force_login(issued.membership.user)
    assert client.get("/w/acme/evaluators/")["Location"] == "/accounts/password/"
    assert client.get("/")["Location"] == "/accounts/password/"
    page = client.get("/accounts/password/").content.decode()
    assert 'id="password-change-required"' in page
    changed = client.post(
        "/accounts/password/",
        {"old_password": issued.password, "new_password1": MINE, "new_password2": MINE},
    )
    assert changed.status_code == 302
    user = User.objects.get(username="li")
    assert user.check_password(MINE) and not selectors.password_change_required(user=user)
    assert client.get("/w/acme/evaluators/").status_code == 200


def test_a_wrong_old_password_changes_nothing(client, workspace):
    issued = services.member_create_with_password(workspace=workspace, username="li", role="editor")
    client.force_login(issued.membership.user)
    refused = client.post(
        "/accounts/password/",
        {"old_password": "wrong", "new_password1": MINE, "new_password2": MINE},
    )
    assert refused.status_code == 200 and "incorrect" in refused.content.decode()
    assert selectors.password_change_required(user=User.objects.get(username="li"))


def test_bad_input_is_named_and_nothing_is_created(web, workspace):
    taken = web.post(CREATE, {"new-username": "alice", "new-role": "editor"})
    assert taken.status_code == 400 and "is taken" in taken.content.decode()
    bad = web.post(CREATE, {"new-username": "no spaces!", "new-role": "editor"})
    assert bad.status_code == 400 and not User.objects.filter(username="no spaces!").exists()
    role = web.post(CREATE, {"new-username": "ok", "new-role": "god"})
    assert role.status_code == 400 and not User.objects.filter(username="ok").exists()
    assert workspace.memberships.count() == 1


def test_only_owners_create_accounts(client, member):
    client.force_login(member("ed", role="editor"))
    assert client.post(CREATE, {"new-username": "x", "new-role": "owner"}).status_code == 403
    assert not User.objects.filter(username="x").exists()


def test_the_api_is_closed_to_a_session_on_a_temporary_password(client, workspace):
    # the API with the browser's session must not be a way around choosing one's own
    # password (nor a way to mint a token that keeps the owner-known password working)
    issued = services.member_create_with_password(workspace=workspace, username="li", role="editor")
    client.force_login(issued.membership.user)
    listed = client.get("/api/v1/evaluators/", HTTP_X_ASSAY_WORKSPACE="acme")
    assert listed.status_code == 403 and "password" in listed.json()["error"]["message"]
    minted = client.post(
        "/api/v1/tokens/",
        {"name": "ci"},
        content_type="application/json",
        HTTP_X_ASSAY_WORKSPACE="acme",
    )
    assert minted.status_code == 403
    assert not issued.membership.user.api_tokens.exists()
    services.password_change_done(user=issued.membership.user)
    assert client.get("/api/v1/evaluators/", HTTP_X_ASSAY_WORKSPACE="acme").status_code == 200
