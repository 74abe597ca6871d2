"""A workspace's slug is optional: a Chinese-only name gets one made for it (issue 28)."""

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from assay import services
from assay.models import Workspace

pytestmark = pytest.mark.django_db

RANDOM_SLUG = re.compile(r"^ws-[a-z2-9]{6}$")


def test_a_chinese_name_alone_makes_a_workspace_with_a_random_slug(user):
    made = services.workspace_create(name="客服团队 评测", owner=user)
    other = services.workspace_create(name="客服团队 评测", owner=user)
    assert made.name == "客服团队 评测" and RANDOM_SLUG.match(made.slug)
    assert RANDOM_SLUG.match(other.slug) and other.slug != made.slug


def test_a_taken_slug_from_the_name_is_numbered_but_a_given_one_is_refused(user):
    assert services.workspace_create(name="QA 团队", owner=user).slug == "qa"
    assert services.workspace_create(name="QA 团队", owner=user).slug == "qa-2"
    with pytest.raises(Exception) as refused:
        services.workspace_create(name="Again", slug="qa", owner=user)
    assert "slug" in refused.value.message_dict


def test_the_page_creates_a_chinese_named_workspace(client, user):
    client.force_login(user)
    response = client.post(reverse("workspace_new"), {"name": "客服团队 评测", "slug": ""})
    workspace = Workspace.objects.get(name="客服团队 评测")
    assert response.status_code == 302 and workspace.slug in response["Location"]
    assert workspace.memberships.get().user == user


def test_the_api_creates_a_chinese_named_workspace(user):
    session = APIClient()
    session.force_login(user)
    response = session.post("/api/v1/workspaces/", {"name": "客服团队"}, format="json")
    assert response.status_code == 201, response.content
    assert RANDOM_SLUG.match(response.json()["slug"])
    assert response.json()["role"] == "owner"
