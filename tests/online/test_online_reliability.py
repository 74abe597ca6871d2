"""An online run against real PostgreSQL, Redis and worker processes: the worker is killed
(kill -9) mid-run and another started; the run completes with exactly one outcome per sampled
span and evaluator, as experiments do (tests/experiments/test_reliability.py)."""

import pytest
from django.db import transaction
from django.utils import timezone

from experiments.runs.bases import RunStatus
from online.models import OnlineOutcome, OnlineRun
from online.services import online_sweep
from tests.experiments.conftest import FAST_REAPER, postgres_url, redis_server, wait_for  # noqa: F401
from tests.support.processes import Worker
from traces.ingest.storing import rows_insert

from .support import code_rule, llm_span

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

SPANS = 20_000


def done(run) -> int:
    return OnlineOutcome.objects.filter(run=run).count()


def test_kill_9_worker_mid_online_run_then_restart(workspace, user, postgres_url, redis_server):  # noqa: F811
    rule = code_rule(workspace, user)
    spans = [
        llm_span(workspace, output="yes" if i % 2 else "no", expected="yes") for i in range(SPANS)
    ]
    with transaction.atomic():
        rows_insert(spans)
    first = Worker(
        database_url=postgres_url, redis_url=redis_server.url, extra_env=FAST_REAPER
    ).start()
    second = None
    try:
        run = online_sweep(rule_id=rule.pk, now=timezone.now() + timezone.timedelta(minutes=1))
        assert run.chunks_total == SPANS // 1000
        wait_for(lambda: done(run) >= 1000, 120, "first outcomes", [first])
        first.kill_hard()
        killed_at = done(run)
        assert killed_at < SPANS, "the run finished before the kill: the test proves nothing"
        second = Worker(
            database_url=postgres_url, redis_url=redis_server.url, beat=True, extra_env=FAST_REAPER
        ).start()
        wait_for(
            lambda: OnlineRun.objects.get(pk=run.pk).status == RunStatus.COMPLETED,
            180,
            "completion",
            [second],
        )
    finally:
        first.kill_hard()
        if second:
            second.stop()
    run.refresh_from_db()
    outcomes = OnlineOutcome.objects.filter(run=run)
    assert outcomes.count() == SPANS == run.results_done
    assert outcomes.values("span_id").distinct().count() == SPANS
    assert outcomes.filter(verdict="pass").count() == SPANS // 2
