"""A queue's page and the review page: the item beside its score form, labels stored through
the review services (N of M is theirs), a held item back on reload, blind mode hiding the
judge and others' labels, a lost reservation shown as such, viewers reading only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation

from annotation.models import Label, QueueItem, ReviewSlot
from assay.models import Membership
from tests.annotation.support import C, Q, client_of, queue_with_items

pytestmark = pytest.mark.django_db


def page_client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def review_url(made) -> str:
    return f"/w/acme/annotation/{made['queue']['id']}/review/"


def held_item(page) -> str:
    text = page.content.decode()
    marker = 'data-item="'
    assert marker in text, text[:2000]
    return text.split(marker, 1)[1].split('"', 1)[0]


def test_the_review_page_shows_the_item_and_a_label_moves_on(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=2)
    ann = page_client(member("ann"))
    page = ann.get(review_url(made))
    assert page.status_code == 200
    text = page.content.decode()
    first = held_item(page)
    assert "Correct?" in text and 'name="config-{}"'.format(made["config"]["id"]) in text
    assert "Judges" in text and 'id="judge"' in text  # an open queue shows the judge
    field = f"config-{made['config']['id']}"
    sent = ann.post(review_url(made), {"item": first, field: "true", "note": "fine"})
    assert sent.status_code == 302
    label = Label.objects.get(reviewer__username="ann")
    assert label.value is True and label.note == "fine" and str(label.item.public_id) == first
    following = ann.get(review_url(made))
    assert held_item(following) != first and "Saved." in following.content.decode()
    assert "1 of 2 items done · you labelled 1, skipped 0" in following.content.decode()


def test_a_held_item_comes_back_on_reload_and_nothing_left_at_the_end(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    ann = page_client(member("ann"))
    first = held_item(ann.get(review_url(made)))
    assert held_item(ann.get(review_url(made))) == first
    assert ReviewSlot.objects.filter(reviewer__username="ann").count() == 1
    skipped = ann.post(review_url(made), {"item": first, "skip": "1", "reason": "unreadable"})
    assert skipped.status_code == 302
    assert ReviewSlot.objects.get(reviewer__username="ann").skip_reason == "unreadable"
    assert 'id="nothing-left"' in ann.get(review_url(made)).content.decode()


def test_missing_labels_come_back_named_and_nothing_is_stored(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    ann = page_client(member("ann"))
    first = held_item(ann.get(review_url(made)))
    sent = ann.post(review_url(made), {"item": first})
    assert sent.status_code == 400 and held_item(sent) == first
    assert 'class="error"' in sent.content.decode() and not Label.objects.exists()
    no_reason = ann.post(review_url(made), {"item": first, "skip": "1", "reason": ""})
    assert no_reason.status_code == 400 and not ReviewSlot.objects.exclude(status="reserved")


def test_a_lost_reservation_is_a_clear_message(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    ann = page_client(member("ann"))
    first = held_item(ann.get(review_url(made)))
    ReviewSlot.objects.filter(reviewer__username="ann").update(
        reserved_until=timezone.now() - timedelta(minutes=1)
    )
    bob = client_of(workspace=workspace, user=member("bob"))
    assert bob.post(f"{Q}{made['queue']['id']}/next/").status_code == 200  # took the slot
    field = f"config-{made['config']['id']}"
    sent = ann.post(review_url(made), {"item": first, field: "false"})
    assert sent.status_code == 409
    assert "went to another reviewer" in sent.content.decode() and not Label.objects.exists()


def test_blind_mode_hides_the_judge_and_other_labels(api, workspace, user, member):
    made = queue_with_items(
        api, workspace=workspace, user=user, rows=1, reviewers_per_item=2, blind=True
    )
    bob = client_of(workspace=workspace, user=member("bob"))
    item = bob.post(f"{Q}{made['queue']['id']}/next/").json()
    labels = {"values": {made["config"]["id"]: False}}
    url = f"{Q}{made['queue']['id']}/items/{item['id']}/labels/"
    assert bob.post(url, labels, format="json").status_code == 201
    ann = page_client(member("ann"))
    text = ann.get(review_url(made)).content.decode()
    assert 'data-item="{}"'.format(item["id"]) in text
    assert 'id="judge"' not in text and 'id="others"' not in text and "bob" not in text
    open_queue = api.patch(f"{Q}{made['queue']['id']}/", {"blind": False}, format="json")
    assert open_queue.status_code == 200
    text = ann.get(review_url(made)).content.decode()
    assert 'id="judge"' in text and 'id="others"' in text and "bob" in text
    assert "bob · Correct?: <strong>No</strong>" in text  # a boolean as the form says it


def test_a_viewer_reads_the_pages_but_cannot_review(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    vic = page_client(member("vic", Membership.Role.VIEWER))
    page = vic.get(review_url(made))
    assert page.status_code == 200 and 'id="cannot-review"' in page.content.decode()
    assert not ReviewSlot.objects.exists()
    item = api.get(f"{Q}{made['queue']['id']}/items/").json()["results"][0]["id"]
    field = f"config-{made['config']['id']}"
    assert vic.post(review_url(made), {"item": item, field: "true"}).status_code == 403
    queue_page = vic.get(f"/w/acme/annotation/{made['queue']['id']}/").content.decode()
    assert 'id="start-reviewing"' not in queue_page and 'id="queue-agreement"' not in queue_page


def test_the_queue_page_shows_progress_and_agreement_to_owners(api, web, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=3, reviewers_per_item=2)
    field = f"config-{made['config']['id']}"
    for name in ("ann", "bob"):
        reviewer = page_client(member(name))
        for _ in range(3):
            item = held_item(reviewer.get(review_url(made)))
            reviewer.post(review_url(made), {"item": item, field: "true"})
    page = web.get(f"/w/acme/annotation/{made['queue']['id']}/")
    text = page.content.decode()
    assert page.status_code == 200 and 'id="start-reviewing"' in text
    assert "3 of 3 items done" in text and 'data-reviewer="ann"' in text
    assert 'id="queue-agreement"' in text and "ann · bob" in text
    with translation.override("zh-hans"):
        chinese = web.get(
            f"/w/acme/annotation/{made['queue']['id']}/", HTTP_ACCEPT_LANGUAGE="zh-hans"
        ).content.decode()
    assert "开始审阅" in chinese


def test_every_kind_of_config_is_a_field_and_its_label_is_stored(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    tone = api.post(
        C, {"name": "Tone", "kind": "categorical", "labels": ["rude", "kind"]}, format="json"
    ).json()
    stars = api.post(
        C,
        {"name": "Stars", "kind": "numeric", "minimum": 1, "maximum": 5, "step": 1},
        format="json",
    ).json()
    why = api.post(C, {"name": "Why", "kind": "text"}, format="json").json()
    configs = [made["config"]["id"], tone["id"], stars["id"], why["id"]]
    patched = api.patch(f"{Q}{made['queue']['id']}/", {"score_configs": configs}, format="json")
    assert patched.status_code == 200, patched.content
    ann = page_client(member("ann"))
    item = held_item(ann.get(review_url(made)))
    body = {
        "item": item,
        f"config-{made['config']['id']}": "unknown",
        f"config-{tone['id']}": "kind",
        f"config-{stars['id']}": "4",
        f"config-{why['id']}": "<script>alert(1)</script>",
    }
    assert ann.post(review_url(made), body).status_code == 302
    stored = dict(Label.objects.values_list("score_config__name", "value"))
    assert stored == {
        "Correct?": None,
        "Tone": "kind",
        "Stars": 4,
        "Why": "<script>alert(1)</script>",
    }


def test_outsiders_get_404_and_acmes_items_are_refused_in_their_own_queue(
    api, workspace, user, outsider, outsider_api
):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    acme_item = api.get(f"{Q}{made['queue']['id']}/items/").json()["results"][0]["id"]
    mallory = page_client(outsider)
    field = f"config-{made['config']['id']}"
    for ws in ("acme", "other"):  # Acme's URL, and their own workspace's with Acme's queue
        base = f"/w/{ws}/annotation/{made['queue']['id']}/"
        assert mallory.get(base).status_code == 404
        assert mallory.get(base + "review/").status_code == 404
        assert mallory.post(base + "review/", {"item": acme_item, field: "true"}).status_code == 404
    mine = outsider_api.post(C, {"name": "Mine", "kind": "boolean"}, format="json").json()
    queue = outsider_api.post(Q, {"name": "Q", "score_configs": [mine["id"]]}, format="json")
    own = f"/w/other/annotation/{queue.json()['id']}/review/"
    sent = mallory.post(own, {"item": acme_item, f"config-{mine['id']}": "true"})
    assert sent.status_code == 302 and "No such item" in mallory.get(own).content.decode()
    assert not ReviewSlot.objects.exists() and not Label.objects.exists()


def test_the_queues_list_links_each_queue_to_its_page(api, web, workspace, user):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    text = web.get("/w/acme/annotation/").content.decode()
    assert 'href="/w/acme/annotation/{}/"'.format(made["queue"]["id"]) in text


def test_the_snapshot_is_text_never_markup(api, workspace, user, member):
    made = queue_with_items(api, workspace=workspace, user=user, rows=1)
    item = QueueItem.objects.get()
    item.snapshot = {
        "input": {"question": "<script>alert(1)</script>"},
        "output": {"answer": {"nested": "<img src=x onerror=alert(2)>"}},
        "conversation": {"messages": [{"role": "user", "content": "<b>hi</b>"}]},
    }
    item.save()
    text = page_client(member("ann")).get(review_url(made)).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text and "<script>alert(1)" not in text
    assert "<img src=x" not in text and "&lt;b&gt;hi&lt;/b&gt;" in text
