"""The queue page's feeds and assignment: following a rule or an experiment from the page,
pausing and stopping a feed, saying who reviews (owners), and the review page refusing those
it is not open to; in Chinese too. Roles of every route: tests/test_roles_routes.py."""

from __future__ import annotations

import pytest
from django.utils import translation

from annotation.models import QueueFeed
from assay.models import Membership, Workspace
from tests.annotation.support import C, Q, client_of, finished_results
from tests.online.support import code_rule

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue(api):
    config = api.post(C, {"name": "Correct?", "kind": "boolean"}, format="json").json()
    return api.post(Q, {"name": "Triage", "score_configs": [config["id"]]}, format="json").json()


def page(queue) -> str:
    return f"/w/acme/annotation/{queue['id']}/"


def test_an_editor_follows_a_rule_from_the_page_then_pauses_and_stops_it(
    client, workspace, user, queue, member
):
    rule = code_rule(workspace, user, name="客服 <b>rule</b>")
    client.force_login(member("ann"))
    shown = client.get(page(queue)).content.decode()
    assert 'id="feed-form"' in shown and 'id="no-feeds"' in shown
    assert "客服 &lt;b&gt;rule&lt;/b&gt;" in shown  # escaped
    body = {"source": f"online_rule:{rule.public_id}", "verdicts": ["fail", "unknown"]}
    answer = client.post(f"{page(queue)}feeds/", {**body, "percent": "30"})
    assert answer.status_code == 302 and answer["Location"].endswith("#queue-feeds")
    feed = QueueFeed.objects.get()
    assert (feed.rule, feed.verdicts, feed.sampling_rate) == (rule, ["fail", "unknown"], 0.3)
    shown = client.get(page(queue)).content.decode()
    assert f'data-feed="{feed.public_id}"' in shown and "30 %" in shown
    client.post(f"{page(queue)}feeds/{feed.public_id}/", {"action": "pause"})
    assert not QueueFeed.objects.get().active
    client.post(f"{page(queue)}feeds/{feed.public_id}/", {"action": "stop"})
    assert not QueueFeed.objects.exists()


def test_a_foreign_rule_or_a_bad_rate_follows_nothing(
    client, workspace, user, queue, outsider, member
):
    theirs = code_rule(Workspace.objects.get(slug="other"), outsider, name="theirs")
    client.force_login(member("ann"))
    foreign = {"source": f"online_rule:{theirs.public_id}", "percent": "50"}
    shown = client.post(f"{page(queue)}feeds/", foreign, follow=True).content.decode()
    assert "theirs" not in shown and not QueueFeed.objects.exists()
    experiment, _ids = finished_results(workspace=workspace, user=user, rows=1)
    zero = {"source": f"experiment:{experiment}", "percent": "0"}
    client.post(f"{page(queue)}feeds/", zero)
    assert not QueueFeed.objects.exists()


def test_an_owner_assigns_the_queue_and_others_cannot_review(
    client, web, workspace, user, queue, member
):
    ann, bob = member("ann"), member("bob")
    experiment, ids = finished_results(workspace=workspace, user=user, rows=2)
    owner_api = client_of(workspace=workspace, user=user)
    items = {"experiment": experiment, "results": ids}
    owner_api.post(f"{Q}{queue['id']}/items/", items, format="json")
    saved = web.post(f"{page(queue)}assignment/", {"open_to": "assigned", "assignees": ["ann"]})
    assert saved.status_code == 302
    shown = web.get(page(queue)).content.decode()
    assert 'id="assign-form"' in shown and "ann" in shown.split('id="open-to"')[1][:300]
    client.force_login(bob)
    refused = client.get(page(queue)).content.decode()
    assert 'id="not-assigned"' in refused and 'id="start-reviewing"' not in refused
    assert 'id="assign-form"' not in refused  # owners only
    review = client.get(f"{page(queue)}review/").content.decode()
    assert "This queue is assigned to other reviewers." in review.split('id="cannot-review"')[1]
    assert client.post(f"{page(queue)}review/", {"item": "x"}).status_code == 403
    assert client.post(f"{page(queue)}assignment/", {"open_to": "reviewers"}).status_code == 403
    client.force_login(ann)
    assert 'id="start-reviewing"' in client.get(page(queue)).content.decode()


def test_the_feeds_and_assignment_read_in_chinese(client, workspace, user, queue, member):
    code_rule(workspace, user, name="规则")
    viewer = member("vic", Membership.Role.VIEWER)
    client.force_login(viewer)
    with translation.override("zh-hans"):
        shown = client.get(page(queue), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    section = shown.split('id="queue-feeds"')[1].split("</section>")[0]
    assert "Feeds" not in section and "follows no" not in section
    assert 'id="feed-form"' not in shown  # a viewer reads
    who = shown.split('id="queue-assignment"')[1].split("</section>")[0]
    assert "Who reviews" not in who and "Every editor" not in who
