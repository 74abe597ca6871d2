"""One task round trip through a real worker (Redis in CI, in-memory broker locally)."""

import os

import pytest

from assay.tasks import ping
from tests.conftest import require_service


def test_ping_round_trip(celery_worker_inproc):
    if os.environ.get("ASSAY_REQUIRE_SERVICES") == "1":
        require_service("Redis", bool(os.environ.get("REDIS_URL")), "REDIS_URL is not set")
    result = ping.delay("hello")
    assert result.get(timeout=30) == "pong:hello"


@pytest.mark.django_db
def test_task_settings_are_safe_for_redelivery():
    from django.conf import settings

    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_TASK_REJECT_ON_WORKER_LOST is True
    assert settings.CELERY_WORKER_PREFETCH_MULTIPLIER == 1
    assert {"code", "llm"} <= set(settings.CELERY_TASK_QUEUES_NAMES)
