"""Dispatch (SQLite's ORM path and PostgreSQL's SQL path alike) starts the runs launched since
the last one, so their chunks are candidates before their start task gets a pool process, and
tops each workspace up to its bound only (`ASSAY_WORKSPACE_MAX_CHUNKS`)."""

import pytest

from assay import services as accounts
from experiments import scoring as engine
from experiments import services
from experiments.models import ExperimentChunk, ExperimentStatus
from experiments.runs import dispatch
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db


def launch(workspace, user, *, rows: int):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows))
    check = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="run",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        chunk_size=10,
    )
    return services.experiment_launch(experiment=experiment)


def test_a_launched_run_is_dispatched_before_its_start_task_and_a_is_held_to_its_bound(
    workspace, user, make_user, settings
):
    settings.ASSAY_DISPATCH_AHEAD, settings.ASSAY_WORKSPACE_MAX_CHUNKS = 4, 2
    runaway = launch(workspace, user, rows=100)
    first = engine.experiment_begin(experiment_id=runaway.pk)
    assert len(first) == 2  # the bound, though the broker has room for four
    for chunk in first:
        assert engine.chunk_claim(chunk_id=chunk.pk)  # A's two chunks hold the pool
    bob = make_user("bob")
    other = accounts.workspace_create(name="Other", slug="other", owner=bob)
    small = launch(other, bob, rows=12)  # its start task has not run (no pool process free)
    assert small.status == ExperimentStatus.QUEUED

    chosen = dispatch.chunks_dispatch(("code",))  # as A's chunk claim or finish dispatches

    assert [chunk.experiment_id for chunk in chosen] == [small.pk, small.pk]
    small.refresh_from_db()
    assert small.status == ExperimentStatus.RUNNING and small.started_at is not None
    queued = ExperimentChunk.objects.filter(experiment=runaway, status="queued")
    assert not queued.exists()  # nothing of A waits in the broker ahead of B
    assert engine.experiment_begin(experiment_id=small.pk) == []  # the late start task: no-op
