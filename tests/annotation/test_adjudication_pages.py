"""The adjudication page: a queue's disagreements with every reviewer's label (blind queue or
not) beside a form that settles one item through `item_adjudicate`, then the next; only
owners and the queue's adjudicators (others 403, outsiders 404: tests/test_roles_routes.py)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from annotation.models import Adjudication
from assay.models import Membership
from tests.annotation.support import Q, client_of
from tests.annotation.test_adjudication import gold_of, item_ids, label_all, verdict_queue

pytestmark = pytest.mark.django_db


def page_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def disputed(api, workspace, user, member):
    """A blind queue of 4 items, N = 2: ann and bob disagree on the 2nd and 4th items."""
    made = verdict_queue(api, workspace=workspace, user=user, rows=4, n=2, blind=True)
    for name, values in (("ann", [True, True, False, False]), ("bob", [True, False, False, True])):
        label_all(client_of(workspace=workspace, user=member(name)), made, values)
    made["items"] = item_ids(made)
    made["url"] = f"/w/acme/annotation/{made['queue']}/adjudicate/"
    made["field"] = f"config-{made['config']}"
    return made


def shown_item(page) -> str:
    text = page.content.decode()
    return text.split('id="adjudicate" data-item="', 1)[1].split('"', 1)[0]


def test_an_owner_sees_every_label_and_settles_items_one_after_the_other(web, disputed):
    page = web.get(disputed["url"])
    assert page.status_code == 200
    text = page.content.decode()
    items = disputed["items"]
    assert shown_item(page) == items[1] and "2 items wait for adjudication" in text
    # blind queue: the adjudicator still sees both reviewers' labels and the judge
    assert 'data-reviewer="ann"' in text and 'data-reviewer="bob"' in text and 'id="judge"' in text
    assert f'name="{disputed["field"]}" value="true" id="{disputed["field"]}-1"' in text
    assert 'value="unknown"' not in text  # a final label is known
    sent = web.post(
        disputed["url"], {"item": items[1], disputed["field"]: "false", "note": "see row 2"}
    )
    assert sent.status_code == 302 and sent["Location"].endswith(f"?item={items[3]}")
    settled = Adjudication.objects.get()
    assert settled.value is False and settled.note == "see row 2"
    assert settled.adjudicator.username == "alice" and gold_of(disputed)[items[1]] is False
    following = web.get(sent["Location"])
    assert shown_item(following) == items[3] and "Settled." in following.content.decode()
    web.post(disputed["url"], {"item": items[3], disputed["field"]: "true"})
    assert 'id="nothing-waiting"' in web.get(disputed["url"]).content.decode()


def test_a_missing_label_is_named_and_a_settled_item_is_not_settled_again(web, disputed):
    items = disputed["items"]
    missing = web.post(disputed["url"], {"item": items[1], "note": "?"})
    assert missing.status_code == 400 and shown_item(missing) == items[1]
    assert 'class="error"' in missing.content.decode() and not Adjudication.objects.exists()
    chosen = web.get(disputed["url"], {"item": items[3]})
    assert shown_item(chosen) == items[3]
    for not_waiting in (items[0], "not-an-id"):  # unanimous, or no item: nothing is written
        answer = web.post(disputed["url"], {"item": not_waiting, disputed["field"]: "true"})
        assert answer.status_code == 302 and not Adjudication.objects.exists()


def test_only_owners_and_named_adjudicators_open_it(api, web, disputed, member):
    ann, vic = member("ann2"), member("vic", Membership.Role.VIEWER)
    assert page_client(ann).get(disputed["url"]).status_code == 403
    assert page_client(vic).get(disputed["url"]).status_code == 403
    queue_page = f"/w/acme/annotation/{disputed['queue']}/"
    assert 'id="adjudicate-link"' not in page_client(ann).get(queue_page).content.decode()
    named = api.patch(f"{Q}{disputed['queue']}/", {"adjudicators": ["ann2"]}, format="json")
    assert named.status_code == 200, named.content
    assert page_client(ann).get(disputed["url"]).status_code == 200
    refused = page_client(ann).post(
        disputed["url"], {"item": disputed["items"][1], disputed["field"]: "true"}
    )
    assert refused.status_code == 302 and Adjudication.objects.get().adjudicator.username == "ann2"
    owner_page = web.get(queue_page).content.decode()
    assert 'id="adjudicate-link"' in owner_page and "Adjudicate (1 waiting)" in owner_page


def test_another_workspaces_queue_is_not_found(disputed, outsider):
    mallory = page_client(outsider)
    assert mallory.get(disputed["url"]).status_code == 404
    own_ws = disputed["url"].replace("/w/acme/", "/w/other/")
    assert mallory.get(own_ws).status_code == 404
    assert mallory.post(own_ws, {"item": disputed["items"][1]}).status_code == 404


def test_the_page_speaks_chinese(web, disputed):
    with translation.override("zh-hans"):
        text = web.get(disputed["url"], HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "裁决" in text and "Settle and next" not in text
