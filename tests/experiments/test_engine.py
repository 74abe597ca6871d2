"""The run engine through a real (in-process) worker: fan-out, idempotency, cancel, retry."""

import pytest

from experiments import scoring as engine
from experiments import services
from experiments.models import (
    ChunkStatus,
    Experiment,
    ExperimentChunk,
    ExperimentStatus,
    Result,
)
from experiments.services import runs
from experiments.tasks import chunk_run
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db(transaction=True)


def wait_status(experiment, statuses, timeout=60):
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        experiment.refresh_from_db()
        if experiment.status in statuses:
            return experiment
        time.sleep(0.1)
    raise AssertionError(f"experiment stuck in {experiment.status}")


@pytest.fixture
def setup(workspace, user):
    version = make_evalset_version(
        workspace=workspace, user=user, rows=qa_rows(120, error_every=10, unknown_every=7)
    )
    ev = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="run",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
        chunk_size=50,
    )
    return experiment


def test_runs_to_completion_with_one_result_per_row(setup, celery_worker_inproc):
    experiment = services.experiment_launch(experiment=setup)
    assert experiment.status == ExperimentStatus.QUEUED and experiment.chunks_total == 3
    done = wait_status(experiment, {ExperimentStatus.COMPLETED})
    assert done.results_done == done.results_total == 120
    assert Result.objects.filter(experiment=done).count() == 120
    counts = {
        v: Result.objects.filter(experiment=done, verdict=v).count()
        for v in ("pass", "fail", "unknown")
    }
    errors = Result.objects.filter(experiment=done, status="error")
    assert errors.count() == 12 and all("ZeroDivisionError" in r.error for r in errors)
    assert sum(counts.values()) == 120 and counts["unknown"] >= 12
    aggregate = done.aggregates.get().summary
    assert aggregate["passed"] == counts["pass"] and aggregate["nones"] == counts["unknown"]
    assert aggregate["statuses"]["error"] == 12


def test_a_chunk_run_twice_writes_nothing_twice(setup):
    services.experiment_launch(experiment=setup)
    engine.experiment_begin(experiment_id=setup.pk)
    chunk = ExperimentChunk.objects.filter(experiment=setup).order_by("index").first()
    assert chunk_run(chunk.pk) == "done"
    # a marker a second write would overwrite (results keep no update time)
    Result.objects.filter(experiment=setup).update(stdout="written once")
    first = list(Result.objects.filter(experiment=setup).values_list("pk", "stdout"))
    # a redelivered message for the same chunk finds it done and does nothing
    assert chunk_run(chunk.pk) == "already done"
    # even a chunk forced back to pending only fills what is missing
    ExperimentChunk.objects.filter(pk=chunk.pk).update(status=ChunkStatus.PENDING)
    assert chunk_run(chunk.pk) == "done"
    assert list(Result.objects.filter(experiment=setup).values_list("pk", "stdout")) == first
    assert len(first) == 50


def test_cancel_stops_between_rows(setup):
    services.experiment_launch(experiment=setup)
    engine.experiment_begin(experiment_id=setup.pk)
    services.experiment_cancel(experiment=setup)
    chunk = ExperimentChunk.objects.filter(experiment=setup).first()
    assert chunk_run(chunk.pk) == "cancelled"
    setup.refresh_from_db()
    assert setup.status == ExperimentStatus.CANCELLED
    assert Result.objects.filter(experiment=setup).count() == 0


def test_retry_failed_reruns_only_error_rows(setup, celery_worker_inproc, user):
    services.experiment_launch(experiment=setup)
    wait_status(setup, {ExperimentStatus.COMPLETED})
    # a marker a second write would overwrite (results keep no update time)
    Result.objects.filter(experiment=setup, status="success").update(stdout="written once")
    good = dict(
        Result.objects.filter(experiment=setup, status="success").values_list("pk", "stdout")
    )
    # the evaluator cannot change (versions are immutable), so the same rows fail again:
    # what matters is that only they are re-run and nothing else is touched
    assert services.experiment_retry_failed(experiment=setup).total == 12
    done = wait_status(setup, {ExperimentStatus.COMPLETED})
    assert done.retry_round == 1
    assert Result.objects.filter(experiment=done).count() == 120
    retried = Result.objects.filter(experiment=done, status="error")
    assert retried.count() == 12 and set(retried.values_list("attempt", flat=True)) == {1}
    assert (
        dict(Result.objects.filter(experiment=done, status="success").values_list("pk", "stdout"))
        == good
    )


def test_reaper_requeues_a_run_whose_heartbeat_stopped(setup, settings, celery_worker_inproc):
    from django.utils import timezone

    settings.ASSAY_EXPERIMENT_STALE_S = 0
    # launched, but its start message is "lost": status queued and an old heartbeat
    Experiment.objects.filter(pk=setup.pk).update(status=ExperimentStatus.DRAFT)
    runs._plan_chunks(setup)
    Experiment.objects.filter(pk=setup.pk).update(
        status=ExperimentStatus.QUEUED,
        heartbeat_at=timezone.now(),
        items_total=setup.items_total,
        results_total=setup.results_total,
        chunks_total=setup.chunks_total,
    )
    from experiments.tasks import reap_stale

    assert reap_stale() == 1
    done = wait_status(setup, {ExperimentStatus.COMPLETED})
    assert Result.objects.filter(experiment=done).count() == 120
