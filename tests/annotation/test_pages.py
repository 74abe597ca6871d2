"""The annotation queues' list page: every queue with its settings and progress, read by any
member, in English and Chinese; an empty workspace says how to make one."""

from __future__ import annotations

import pytest
from django.utils import translation

from assay.models import Membership
from tests.annotation.support import client_of, queue_with_items

pytestmark = pytest.mark.django_db


def test_the_list_shows_each_queue_with_its_progress(api, web, workspace, user, member):
    made = queue_with_items(
        api, workspace=workspace, user=user, rows=2, reviewers_per_item=2, blind=True
    )
    reviewer = client_of(workspace=workspace, user=member("ann"))
    held = reviewer.post(f"/api/v1/annotation-queues/{made['queue']['id']}/next/").json()
    values = {"values": {made["config"]["id"]: True}}
    url = f"/api/v1/annotation-queues/{made['queue']['id']}/items/{held['id']}/labels/"
    assert reviewer.post(url, values, format="json").status_code == 201
    page = web.get("/w/acme/annotation/")
    assert page.status_code == 200
    text = page.content.decode()
    assert 'data-queue="{}"'.format(made["queue"]["id"]) in text
    assert "Correct?" in text and "0 of 2" in text and "1 of 4" in text and "blind" in text


def test_the_list_reads_for_a_viewer_and_in_chinese(web, client, workspace, member):
    viewer = member("vic", Membership.Role.VIEWER)
    client.force_login(viewer)
    empty = client.get("/w/acme/annotation/")
    assert empty.status_code == 200 and "No annotation queues yet" in empty.content.decode()
    with translation.override("zh-hans"):
        chinese = client.get("/w/acme/annotation/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert "还没有标注队列" in chinese.content.decode()


def test_the_main_navigation_leads_to_the_queues(web):
    page = web.get("/w/acme/annotation/").content.decode()
    assert 'href="/w/acme/annotation/" data-nav="annotation" aria-current="page"' in page
    assert 'data-nav="annotation"' in web.get("/w/acme/experiments/").content.decode()
