"""Reliability against real PostgreSQL, Redis and worker processes: kill -9 the worker
mid-run, restart Redis mid-run; the experiment completes with exactly one result per row."""

import os
import time

import pytest
from django.db import connection

from experiments import services
from experiments.models import Experiment, ExperimentStatus, Result
from tests.experiments.conftest import FAST_REAPER, wait_for
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.processes import Worker

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

ROWS = 20_000


@pytest.fixture
def big_experiment(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    ev = make_code_version(workspace=workspace, user=user)
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name="reliability",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
        chunk_size=500,
    )


def done_count(experiment) -> int:
    return Result.objects.filter(experiment=experiment).count()


def assert_exactly_once(experiment):
    experiment.refresh_from_db()
    assert experiment.status == ExperimentStatus.COMPLETED, experiment.error_message
    results = Result.objects.filter(experiment=experiment)
    assert results.count() == ROWS
    assert results.values("item_id").distinct().count() == ROWS
    assert experiment.results_done == ROWS
    version_items = experiment.evalset_version.items.count()
    assert version_items == ROWS
    assert results.filter(verdict="pass").count() == ROWS // 2


def test_kill_9_worker_mid_run_then_restart(big_experiment, postgres_url, redis_server):
    first = Worker(
        database_url=postgres_url, redis_url=redis_server.url, extra_env=FAST_REAPER
    ).start()
    second = None
    try:
        services.experiment_launch(experiment=big_experiment)
        wait_for(lambda: done_count(big_experiment) >= 1000, 120, "first results", [first])
        first.kill_hard()
        killed_at = done_count(big_experiment)
        assert killed_at < ROWS, "the run finished before the kill: the test proves nothing"
        Experiment.objects.filter(pk=big_experiment.pk).update()  # no-op: state as left
        second = Worker(
            database_url=postgres_url, redis_url=redis_server.url, beat=True, extra_env=FAST_REAPER
        ).start()
        wait_for(
            lambda: (
                Experiment.objects.get(pk=big_experiment.pk).status == ExperimentStatus.COMPLETED
            ),
            180,
            "completion",
            [second],
        )
    finally:
        first.kill_hard()
        if second:
            second.stop()
    assert_exactly_once(big_experiment)


def test_redis_restart_mid_run(big_experiment, postgres_url, redis_server):
    # supervised, as deployed: a worker celery gives up on while it reconnects comes back
    worker = Worker(
        database_url=postgres_url,
        redis_url=redis_server.url,
        beat=True,
        extra_env=FAST_REAPER,
        supervised=True,
    ).start()
    try:
        services.experiment_launch(experiment=big_experiment)
        wait_for(lambda: done_count(big_experiment) >= 1000, 120, "first results", [worker])
        redis_server.kill()  # every queued message is gone with it
        assert done_count(big_experiment) < ROWS, "the run finished before the restart"
        time.sleep(1)
        redis_server.start()
        wait_for(
            lambda: (
                Experiment.objects.get(pk=big_experiment.pk).status == ExperimentStatus.COMPLETED
            ),
            180,
            "completion",
            [worker],
        )
    finally:
        worker.stop()
    assert_exactly_once(big_experiment)


def test_errors_and_timeouts_never_fail_the_experiment(workspace, user, celery_worker_inproc):
    source = (
        "def exec_evaluation(turn):\n"
        "    ref = turn['evaluate_dataset_fields']['reference_output']['text']\n"
        "    if ref == 'ERROR':\n        return 1 / 0\n"
        "    if ref == 'UNKNOWN':\n        while True:\n            pass\n"
        "    return EvalOutput(score=1.0, reason='ok')\n"
    )
    version = make_evalset_version(
        workspace=workspace, user=user, rows=qa_rows(40, error_every=5, unknown_every=9)
    )
    ev = make_code_version(workspace=workspace, user=user, source=source, timeout_s=0.5)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="rough",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
        chunk_size=20,
    )
    services.experiment_launch(experiment=experiment)
    wait_for(
        lambda: (
            Experiment.objects.get(pk=experiment.pk).status
            in (ExperimentStatus.COMPLETED, ExperimentStatus.FAILED)
        ),
        120,
        "completion",
    )
    experiment.refresh_from_db()
    assert experiment.status == ExperimentStatus.COMPLETED
    results = Result.objects.filter(experiment=experiment)
    assert results.count() == 40
    for result in results.exclude(status="success"):
        assert result.verdict == "unknown" and result.score is None and result.error
    assert results.filter(status="timeout").exists() and results.filter(status="error").exists()
    assert os.environ.get("ASSAY_REQUIRE_SERVICES") != "1" or connection.vendor == "postgresql"
