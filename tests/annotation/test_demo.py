"""The demo has a reviewed queue: the stricter check's failing rows of Demo QA, two reviewers'
labels on seventeen of the twenty, a few disagreements (all adjudicated but one), so the queue
page shows the reviewers' agreement and the judge's calibration from gold labels; three items
wait for the newcomer's label; loading again adds nothing."""

import time

import pytest
from django.test import Client

from annotation.demo import QUEUE, REVIEWERS, demo_load
from annotation.models import Adjudication, AnnotationQueue, Label
from annotation.selectors import gold_labels, queue_calibrations, queue_disagreements
from assay.demo import DEMO_USERNAME
from assay.demo import demo_load as platform_demo_load

pytestmark = pytest.mark.django_db


def test_the_demo_has_a_reviewed_queue_with_agreement_and_gold_labels():
    workspace = platform_demo_load()
    queue = AnnotationQueue.objects.get(workspace=workspace, name=QUEUE)
    assert queue.items.count() == 20 and queue.reviewers_per_item == 2
    labels = sorted(item.labels.count() for item in queue.items.all())
    assert labels == [2] * 3 + [4] * 17  # 2 configs × 1 or 2 reviewers
    assert set(
        Label.objects.filter(item__queue=queue).values_list("reviewer__username", flat=True)
    ) == set(REVIEWERS)
    assert len(queue_disagreements(queue=queue)) == 1  # one left for the adjudicator
    assert Adjudication.objects.filter(item__queue=queue).exists()
    correct = queue.score_configs.get(kind="boolean")
    assert len(gold_labels(queue=queue, config=correct)) == 16
    [calibration] = queue_calibrations(queue=queue)
    assert calibration["n"] == 16 and calibration["labels"]["inter_human_alpha"] > 0.5
    owner = Client()
    owner.force_login(workspace.memberships.get(user__username=DEMO_USERNAME).user)
    page = owner.get(f"/w/{workspace.slug}/annotation/{queue.public_id}/").content.decode()
    assert "17 of 20 items done" in page and 'id="queue-agreement"' in page
    assert "α = 0." in page and REVIEWERS[0] in page  # alpha with its interval, per pair
    started = time.perf_counter()
    platform_demo_load()  # every start loads the demo again: nothing new, and quickly
    demo_load(workspace=workspace, user=queue.created_by)
    assert time.perf_counter() - started < 10
    assert AnnotationQueue.objects.filter(workspace=workspace).count() == 1
    assert Label.objects.filter(item__queue=queue).count() == 74
    review = owner.get(f"/w/{workspace.slug}/annotation/{queue.public_id}/review/")
    assert 'id="review"' in review.content.decode()  # the newcomer has an item to label
