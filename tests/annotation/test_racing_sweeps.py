"""Feeds swept at the same moment by several workers (processes of their own, on PostgreSQL):
every sweep reads the same batch and one takes it (the cursor's conditional UPDATE waits on
the feed's row); the others add nothing, each item is added once and counted once."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from annotation.models import AnnotationQueue, QueueFeed, QueueItem, ScoreConfig
from annotation.services.feeds import queue_feed_create
from assay import services as platform
from online.models import OnlineOutcome
from tests.annotation.test_racing_reviewers import database_url  # noqa: F401 (a fixture)
from tests.online.support import code_rule, llm_span, store
from tests.support.processes import python_scripts

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SWEEPER = """
import os, sys, time
from datetime import datetime
os.environ["DATABASE_URL"] = sys.argv[1]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
import django
django.setup()
from annotation.services.feeds import feed_sweep
feed_id, start, now = int(sys.argv[2]), float(sys.argv[3]), datetime.fromisoformat(sys.argv[4])
while time.time() < start:  # every process sweeps at the same moment
    time.sleep(0.0005)
print(feed_sweep(feed_id=feed_id, now=now))
"""
OUTCOMES = 200
SWEEPERS = 4


def feed_of_judged_spans():
    owner = platform.user_create(username="owner", password="pw-owner-123456")
    workspace = platform.workspace_create(name="Acme", slug="acme", owner=owner)
    config = ScoreConfig.objects.create(workspace=workspace, name="Correct?", kind="boolean")
    queue = AnnotationQueue.objects.create(workspace=workspace, name="Race")
    queue.score_configs.add(config)
    rule = code_rule(workspace, owner)
    spans = store([llm_span(workspace, output=f"a{i}", expected="x") for i in range(OUTCOMES)])
    evaluator = rule.evaluators.get()
    OnlineOutcome.objects.bulk_create(
        OnlineOutcome(
            rule=rule,
            rule_evaluator=evaluator,
            trace_id=s.trace_id,
            span_id=s.span_id,
            item_time=s.start_time,
            rate=1.0,
            status="success",
            verdict="fail",
        )
        for s in spans
    )
    return queue_feed_create(queue=queue, user=owner, kind="online_rule", source=rule, fields={})


def test_sweeps_racing_for_one_batch_add_each_item_once(database_url):  # noqa: F811
    feed = feed_of_judged_spans()
    start = time.time() + 3  # after every process has started Django
    later = (timezone.now() + timedelta(minutes=5)).isoformat()
    argvs = [[database_url, str(feed.pk), str(start), later] for _ in range(SWEEPERS)]
    done = python_scripts(SWEEPER, argvs, timeout=120)
    assert [code for code, _, _ in done] == [0] * SWEEPERS, [err[-2000:] for *_, err in done]
    added = sorted(int(out) for _, out, _ in done)
    assert added == [0] * (SWEEPERS - 1) + [OUTCOMES], added
    assert QueueItem.objects.count() == OUTCOMES
    assert QueueFeed.objects.get().added == OUTCOMES
