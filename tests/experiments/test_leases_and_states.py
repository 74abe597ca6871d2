"""Leases, the one state machine, and exactly-once writes, without extra processes.

A chunk is claimed under a lease token; whoever lost the lease (the reaper revived the chunk
for another runner) writes nothing and cannot mark it done. Every status write is one
conditional UPDATE in experiments.runs.lifecycle.
"""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import IntegrityError
from django.utils import timezone

from experiments import scoring as engine
from experiments import services
from experiments.models import ChunkStatus, Experiment, ExperimentChunk, ExperimentStatus, Result
from experiments.runs import lifecycle
from experiments.scoring import EXPERIMENT
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def launched(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(20))
    ev = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="run",
        evalset_version=version,
        bindings=[{"evaluator_version": ev}],
        chunk_size=10,
    )
    services.experiment_launch(experiment=experiment)
    engine.experiment_begin(experiment_id=experiment.pk)
    return experiment


def expire(chunk_id: int) -> None:
    ExperimentChunk.objects.filter(pk=chunk_id).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_a_live_lease_cannot_be_claimed_an_expired_one_can(launched):
    chunk = launched.chunks.order_by("index").first()
    first = lifecycle.claim(EXPERIMENT, chunk.pk)
    assert first is not None
    assert lifecycle.claim(EXPERIMENT, chunk.pk) is None  # a second delivery backs off
    expire(chunk.pk)
    second = lifecycle.claim(EXPERIMENT, chunk.pk)
    assert second is not None and second != first
    assert not lifecycle.lease_renew(EXPERIMENT, chunk.pk, first) and lifecycle.lease_renew(
        EXPERIMENT, chunk.pk, second
    )


def test_a_superseded_runner_writes_nothing_and_cannot_finish_the_chunk(launched):
    chunk = launched.chunks.order_by("index").first()
    claimed, old_token = engine.chunk_claim(chunk_id=chunk.pk)
    expire(chunk.pk)
    reaped = engine.experiments_reap()  # the worker looks dead: the chunk is revived
    assert chunk.pk in {c.pk for c in reaped.send}
    new_chunk, new_token = engine.chunk_claim(chunk_id=chunk.pk)
    assert engine.chunk_run(chunk=claimed, token=old_token, keeper=False) == "stopped"
    assert Result.objects.count() == 0
    assert engine.chunk_complete(chunk=claimed, token=old_token) == []
    assert ExperimentChunk.objects.get(pk=chunk.pk).status == ChunkStatus.RUNNING
    assert engine.chunk_run(chunk=new_chunk, token=new_token, keeper=False) == "done"
    engine.chunk_complete(chunk=new_chunk, token=new_token)
    assert Result.objects.count() == 10
    assert ExperimentChunk.objects.get(pk=chunk.pk).status == ChunkStatus.DONE


def test_the_upsert_keeps_one_row_when_two_runners_write_the_same_rows(launched):
    # Both runners found the rows missing (they checked before either wrote): the second
    # write must update, not duplicate and not fail. Without ON CONFLICT it raises.
    chunk = launched.chunks.order_by("index").first()
    claimed, token = engine.chunk_claim(chunk_id=chunk.pk)
    assert engine.chunk_run(chunk=claimed, token=token, keeper=False) == "done"
    rows = list(Result.objects.filter(experiment=launched))
    for row in rows:
        row.pk, row.reason = None, "written again"
    engine.results_upsert(rows=rows)
    assert Result.objects.filter(experiment=launched).count() == 10
    assert set(Result.objects.values_list("reason", flat=True)) == {"written again"}


def test_without_the_unique_constraint_the_database_would_refuse_duplicates(launched):
    chunk = launched.chunks.order_by("index").first()
    claimed, token = engine.chunk_claim(chunk_id=chunk.pk)
    engine.chunk_run(chunk=claimed, token=token, keeper=False)
    row = Result.objects.filter(experiment=launched).first()
    row.pk = None
    with pytest.raises(IntegrityError):
        Result.objects.bulk_create([row])


@pytest.mark.parametrize(
    ("status", "event", "moves"),
    [
        (ExperimentStatus.DRAFT, "launch", True),
        (ExperimentStatus.QUEUED, "launch", False),
        (ExperimentStatus.QUEUED, "complete", False),
        (ExperimentStatus.RUNNING, "complete", True),
        (ExperimentStatus.CANCELLED, "complete", False),
        (ExperimentStatus.COMPLETED, "cancel", False),
        (ExperimentStatus.RUNNING, "fail", True),
        (ExperimentStatus.COMPLETED, "retry", True),
        (ExperimentStatus.RUNNING, "retry", False),
    ],
)
def test_experiment_events_move_only_from_their_states(launched, status, event, moves):
    Experiment.objects.filter(pk=launched.pk).update(status=status)
    assert lifecycle.move(EXPERIMENT, launched.pk, event) is moves
    expected = lifecycle.RUN_EVENTS[event][1] if moves else status
    assert Experiment.objects.get(pk=launched.pk).status == expected


def test_a_cancel_asked_after_the_last_row_ends_cancelled_not_completed(launched):
    for chunk in launched.chunks.order_by("index"):
        claimed, token = engine.chunk_claim(chunk_id=chunk.pk)
        assert engine.chunk_run(chunk=claimed, token=token, keeper=False) == "done"
        if chunk.index == 1:
            Experiment.objects.filter(pk=launched.pk).update(cancel_requested=True)
        engine.chunk_complete(chunk=claimed, token=token)
    launched.refresh_from_db()
    assert launched.status == ExperimentStatus.CANCELLED and launched.finished_at


def test_status_is_written_only_by_the_lifecycle_module():
    writes = re.compile(r"\.update\([^)]*\bstatus=|\.status\s*=\s*(Experiment|Chunk)Status")
    offenders = []
    for path in (ROOT / "experiments").rglob("*.py"):
        if path.name == "lifecycle.py" or "migrations" in path.parts:
            continue
        offenders += [
            f"{path.name}:{n}"
            for n, line in enumerate(path.read_text().splitlines(), 1)
            if writes.search(line)
        ]
    assert offenders == []


def test_task_id_is_gone():
    assert "task_id" not in {f.name for f in Experiment._meta.get_fields()}
