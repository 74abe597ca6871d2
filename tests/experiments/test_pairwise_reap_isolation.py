"""The reaper's pairwise pass isolates each run: a pairwise run whose stored state makes its
finishing step raise is logged and failed alone, and another pairwise run's dead chunk is still
revived and sent in the same pass (before, the pass raised on every beat)."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from experiments import scoring as engine
from experiments.models import ChunkStatus, PairwiseChunk, PairwiseRun
from experiments.pairwise import services
from experiments.pairwise import work as pairwise_work

pytestmark = pytest.mark.django_db


def create(workspace, user, experiments, judge, name):
    return services.pairwise_run_create(
        workspace=workspace,
        user=user,
        name=name,
        experiments=experiments,
        evaluator_version=judge,
        chunk_size=100,
    )


def test_a_pairwise_run_that_cannot_be_finished_fails_alone(
    workspace, user, pw_apps, pw_judge, caplog
):
    experiments = pw_apps("X", "Y")
    poisoned = pairwise_work.pairwise_run_inline(
        run_id=create(workspace, user, experiments, pw_judge, "poisoned").pk
    )
    assert poisoned.status == "completed"
    # stored before anything checked it: settings its statistics cannot be computed with, and
    # a finishing step that was interrupted
    PairwiseRun.objects.filter(pk=poisoned.pk).update(
        status="running", interval={"iterations": "many"}
    )
    other = create(workspace, user, experiments, pw_judge, "other")
    pairwise_work.pairwise_begin(run_id=other.pk)
    chunk = PairwiseChunk.objects.filter(run=other).order_by("index").first()
    assert pairwise_work.pairwise_chunk_claim(chunk_id=chunk.pk) is not None  # its worker then died
    PairwiseChunk.objects.filter(pk=chunk.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=5)
    )
    caplog.set_level(logging.ERROR)
    reaped = engine.experiments_reap()
    assert PairwiseChunk.objects.get(pk=chunk.pk).status in (
        ChunkStatus.PENDING,
        ChunkStatus.QUEUED,
    )
    assert chunk.pk in {c.pk for c in reaped.send if c.kind == PairwiseChunk.kind}
    failed = PairwiseRun.objects.get(pk=poisoned.pk)
    assert failed.status == "failed" and "could not be finished" in failed.error_message
    assert any(f"pairwise run {poisoned.pk}" in r.getMessage() for r in caplog.records)
    assert PairwiseRun.objects.get(pk=other.pk).status == "running"
