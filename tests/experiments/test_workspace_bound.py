"""Against real worker processes, PostgreSQL and a private Redis: a workspace's runaway runs hold
at most `ASSAY_WORKSPACE_MAX_CHUNKS` chunks queued or running on a queue, so another workspace's
small run starts before the runaways' next chunks (counted by the order chunks were claimed,
never by time)."""

import pytest

from experiments.models import Experiment, ExperimentChunk, ExperimentStatus, Result
from tests.experiments.conftest import FAST_REAPER, wait_for
from tests.experiments.test_worker_behaviour import SLOW_ROW, launch, status_of
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.processes import Worker

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def pool_of_two(postgres_url, redis_server):
    """A worker (with beat, as deployed) whose pool has two processes, and the bound it
    derives: ASSAY_WORKSPACE_MAX_CHUNKS defaults to ASSAY_WORKER_CONCURRENCY."""
    env = {**FAST_REAPER, "ASSAY_WORKER_CONCURRENCY": "2"}
    process = Worker(
        database_url=postgres_url, redis_url=redis_server.url, beat=True, extra_env=env
    ).start()
    yield process
    process.stop()


def claimed_between(runs, after, before) -> int:
    return ExperimentChunk.objects.filter(
        experiment__in=runs, claimed_at__gt=after, claimed_at__lt=before
    ).count()


def test_a_small_run_starts_before_the_runaways_next_chunks(
    workspace, user, make_user, pool_of_two
):
    from assay import services as platform

    slow = make_code_version(
        workspace=workspace, user=user, name="Slow", source=SLOW_ROW.format(loops=1_500_000)
    )
    big = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(120))
    process = pool_of_two
    runaways = [
        launch(workspace, user, big, slow, name=f"runaway {i}", chunk_size=10) for i in range(2)
    ]
    wait_for(
        lambda: Result.objects.filter(experiment__in=runaways).exists(), 60, "runaways", [process]
    )
    bob = make_user("bob")
    other = platform.workspace_create(name="Other", slug="other-team", owner=bob)
    small_set = make_evalset_version(workspace=other, user=bob, rows=qa_rows(12), name="Small")
    quick = make_code_version(workspace=other, user=bob, name="Quick")
    small = launch(other, bob, small_set, quick, name="small")
    wait_for(lambda: status_of(small) == ExperimentStatus.COMPLETED, 90, "the small run", [process])
    launched = Experiment.objects.get(pk=small.pk).queued_at
    started = ExperimentChunk.objects.get(experiment=small).claimed_at
    ahead = claimed_between(runaways, launched, started)
    assert [status_of(r) for r in runaways] == [ExperimentStatus.RUNNING] * 2
    # The bound (2, the pool's size): nothing of the runaways waits in the broker, so at most
    # one of their chunks (dispatched by the chunk that freed the slot the start task needed)
    # starts before the small run's.
    assert ahead <= 1
    assert Result.objects.filter(experiment=small).count() == 12
    for runaway in runaways:
        from experiments import services

        services.experiment_cancel(experiment=runaway)
