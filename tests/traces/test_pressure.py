"""The OTLP endpoint under pressure: a workspace over its span rate gets 429 with Retry-After
(its spans not queued, other workspaces unaffected), and a broker that is down loses nothing:
the batch row is kept, the request answers 200, and `resume_batches` sends it once the broker
is back (a private redis-server the test stops; never the machine's shared one); a database
that does not answer is a 503 with Retry-After, nothing kept."""

import json
import shutil
from datetime import timedelta

import pytest
import redis
from django.db import OperationalError, connection
from django.utils import timezone
from google.rpc import status_pb2

from assay.celery import app
from assay.models import Workspace
from tests.conftest import require_service
from tests.support.fixtures import reset_broker_pools
from tests.support.processes import RedisServer
from traces import tasks
from traces.models import Span, SpanBatch
from traces.services import ingest_key_issue

from .support import export, post, span

pytestmark = pytest.mark.django_db


@pytest.fixture
def key(workspace):
    return ingest_key_issue(workspace=workspace, name="tests").key


def spans(first: int, count: int):
    return export(*(span(first + n) for n in range(count))).SerializeToString()


def test_over_the_span_rate_is_429_with_retry_after_and_nothing_queued(
    client, key, outsider, settings
):
    # 100 spans over 100 s: two requests of 60 a moment apart do not both fit
    settings.ASSAY_OTLP_SPANS_PER_SECOND, settings.ASSAY_OTLP_SPANS_BURST = 1, 100
    settings.ASSAY_OTLP_MAX_SPANS = 100
    assert post(client, spans(1, 60), key).status_code == 200
    busy = post(client, spans(100, 60), key)
    assert busy.status_code == 429
    assert 1 <= int(busy["Retry-After"]) <= 100
    status = status_pb2.Status.FromString(busy.content)
    assert "over 1 spans a second" in status.message and status.code == 8
    assert SpanBatch.objects.get().span_count == 60  # the refused request queued nothing
    # a smaller request still fits the window; another workspace has a window of its own
    assert post(client, spans(200, 30), key).status_code == 200
    theirs = ingest_key_issue(workspace=Workspace.objects.get(slug="other"), name="k").key
    assert post(client, spans(300, 60), theirs).status_code == 200


def test_no_limit_when_the_rate_is_zero(client, key, settings):
    settings.ASSAY_OTLP_SPANS_PER_SECOND, settings.ASSAY_OTLP_MAX_SPANS = 0, 100
    for first in (1, 101, 201):
        assert post(client, spans(first, 100), key).status_code == 200


@pytest.fixture
def private_redis(settings):
    """A redis-server of this test as broker (and rate counter), stopped by the test."""
    require_service("redis-server", shutil.which("redis-server") is not None)
    server = RedisServer().start()
    saved = app.conf.broker_url
    app.conf.broker_url = settings.REDIS_URL = server.url
    reset_broker_pools(app)
    yield server
    app.conf.broker_url = saved
    reset_broker_pools(app)
    server.kill()


def test_a_broker_that_is_down_loses_no_span(
    client, key, private_redis, django_capture_on_commit_callbacks
):
    private_redis.kill()
    with django_capture_on_commit_callbacks(execute=True):
        answer = post(client, spans(1, 3), key)
    assert answer.status_code == 200  # the batch row is committed: the spans are kept
    batch = SpanBatch.objects.get()
    assert batch.span_count == 3 and not Span.objects.exists()

    private_redis.start()  # same port, empty: the first message was never sent
    reset_broker_pools(app)
    SpanBatch.objects.filter(pk=batch.pk).update(received_at=timezone.now() - timedelta(minutes=10))
    assert tasks.resume_batches() == 1
    queued = redis.Redis.from_url(private_redis.url).lrange("default", 0, -1)
    assert [json.loads(m)["headers"]["argsrepr"] for m in queued] == [f"[{batch.pk}]"]
    assert tasks.store_batch(batch.pk) == 3  # what the worker does with that message
    assert Span.objects.count() == 3 and not SpanBatch.objects.exists()


def test_a_database_that_does_not_answer_is_503_with_retry_after(client, key):
    def unreachable(execute, sql, params, many, context):
        # Django's own hook around every query: the server went away
        raise OperationalError("server closed the connection unexpectedly")

    with connection.execute_wrapper(unreachable):
        answer = post(client, spans(1, 2), key)
    assert answer.status_code == 503 and answer["Retry-After"] == "30"
    status = status_pb2.Status.FromString(answer.content)
    assert status.code == 14 and status.message == "the trace store is unavailable"
    assert not SpanBatch.objects.exists()
