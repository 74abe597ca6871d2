"""N-of-M under concurrent reviewers: processes of their own, on PostgreSQL, racing for the
same slots. The server's item lock decides; no item ever takes more reviewers than it asks."""

from __future__ import annotations

import time
import uuid

import pytest
from django.db import connection

from annotation.models import AnnotationQueue, QueueItem, ReviewSlot, ScoreConfig, SlotStatus
from assay import services as platform
from tests.conftest import require_service
from tests.support.processes import python_scripts

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

REVIEWER = """
import os, sys, time
os.environ["DATABASE_URL"] = sys.argv[1]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
import django
django.setup()
from django.contrib.auth import get_user_model
from annotation.models import AnnotationQueue
from annotation.services import review_label, review_next
queue_id, username, start, finish = sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5]
queue = AnnotationQueue.objects.get(public_id=queue_id)
config = queue.score_configs.get()
user = get_user_model().objects.get(username=username)
got = []
while time.time() < start:  # every process asks at the same moment
    time.sleep(0.0005)
while True:
    item = review_next(queue=queue, reviewer=user)
    if item is None:
        break
    got.append(str(item.public_id))
    if finish == "label":
        review_label(item=item, reviewer=user, values={config: True})
    else:
        break  # hold the reservation: one slot asked for, one taken
print(" ".join(got))
"""


@pytest.fixture
def database_url():
    settings = connection.settings_dict
    require_service("PostgreSQL", connection.vendor == "postgresql", "reviewers race in processes")
    user = settings["USER"] or "postgres"
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    host, port = settings["HOST"] or "127.0.0.1", settings["PORT"] or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


def queue_of(*, items: int, per_item: int, reviewers: list[str]) -> AnnotationQueue:
    owner = platform.user_create(username="owner", password="pw-owner-123456")
    workspace = platform.workspace_create(name="Acme", slug="acme", owner=owner)
    for name in reviewers:
        platform.user_create(username=name, password=f"pw-{name}-123456")
        platform.membership_add(workspace=workspace, username=name, role="editor")
    config = ScoreConfig.objects.create(workspace=workspace, name="Correct?", kind="boolean")
    queue = AnnotationQueue.objects.create(
        workspace=workspace, name="Race", reviewers_per_item=per_item
    )
    queue.score_configs.add(config)
    QueueItem.objects.bulk_create(
        QueueItem(queue=queue, source_kind="trace", source_ref=uuid.uuid4().hex, snapshot={})
        for _ in range(items)
    )
    return queue


def race(database_url, queue, reviewers, finish: str) -> dict[str, list[str]]:
    start = time.time() + 3  # after every process has started Django
    argvs = [[database_url, str(queue.public_id), name, str(start), finish] for name in reviewers]
    done = python_scripts(REVIEWER, argvs, timeout=120)
    assert [code for code, _, _ in done] == [0] * len(reviewers), [err[-2000:] for *_, err in done]
    return {name: out.split() for name, (_, out, _) in zip(reviewers, done, strict=True)}


@pytest.mark.parametrize("attempt", range(5))  # five fresh races, each at one moment
def test_two_reviewers_racing_for_one_slot_never_both_get_it(database_url, attempt):
    queue = queue_of(items=1, per_item=1, reviewers=["ann", "bob"])
    got = race(database_url, queue, ["ann", "bob"], finish="hold")
    assert sorted(len(items) for items in got.values()) == [0, 1], got
    assert ReviewSlot.objects.filter(status=SlotStatus.RESERVED).count() == 1


def test_reviewers_racing_through_a_queue_give_each_item_exactly_n_labels(database_url):
    names = ["ann", "bob", "cy", "dee"]
    queue = queue_of(items=30, per_item=2, reviewers=names)
    got = race(database_url, queue, names, finish="label")
    for items in got.values():
        assert len(items) == len(set(items))  # nobody twice on an item
    assert sum(map(len, got.values())) == 60
    per_item = [item.labels.count() for item in queue.items.all()]
    assert per_item == [2] * 30
    assert sum(1 for items in got.values() if items) >= 2  # they did work at once
