"""A chunk taken over after its worker died starts its progress counts afresh: the dead
runner's calls in flight and judge answers (never written) must not show as the new runner's
until its first report, nor stay on the chunk when the new runner reports nothing (review of
issue 28's progress counters)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from experiments import engine, services
from experiments.engine import lifecycle
from experiments.models import ExperimentChunk
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db


def test_a_reclaimed_chunk_drops_the_dead_runners_counts(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(10))
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="run",
        evalset_version=version,
        bindings=[{"evaluator_version": make_code_version(workspace=workspace, user=user)}],
        chunk_size=10,
    )
    services.experiment_launch(experiment=experiment)
    engine.experiment_begin(experiment_id=experiment.pk)
    chunk = experiment.chunks.order_by("index").first()
    assert lifecycle.chunk_claim(chunk.pk) is not None
    # the runner's keeper wrote these, then its worker was killed (no close() ran)
    ExperimentChunk.objects.filter(pk=chunk.pk).update(
        calls_in_flight=2,
        calls_answered=7,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert lifecycle.chunk_claim(chunk.pk) is not None
    chunk.refresh_from_db()
    assert (chunk.calls_in_flight, chunk.calls_answered) == (0, 0)
