"""Progress counts on a chunk stay true when runners die or commits race the lease keeper
(review of issue 28's progress counters)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from evaluators.llm.slots import SlotWatch
from experiments import scoring as engine
from experiments import services
from experiments.models import ExperimentChunk
from experiments.runs import lifecycle
from experiments.scoring import EXPERIMENT
from experiments.scoring.progress import JudgeCalls, _chunk_counts
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def chunk(workspace, user):
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
    return experiment.chunks.order_by("index").first()


def test_a_reclaimed_chunk_drops_the_dead_runners_counts(chunk):
    # the dead runner's calls in flight and judge answers (never written) must not show as
    # the new runner's until its first report, nor stay when it reports nothing
    assert lifecycle.claim(EXPERIMENT, chunk.pk) is not None
    # the runner's keeper wrote these, then its worker was killed (no close() ran)
    ExperimentChunk.objects.filter(pk=chunk.pk).update(
        calls_in_flight=2,
        calls_answered=7,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )
    assert lifecycle.claim(EXPERIMENT, chunk.pk) is not None
    chunk.refresh_from_db()
    assert (chunk.calls_in_flight, chunk.calls_answered) == (0, 0)


def test_a_count_landing_after_a_commit_is_written_over(chunk):
    # The keeper reads the answered calls under the counter's lock and writes them after it;
    # a mini-batch commit (which zeroes them, the results now written) can come in between,
    # so the keeper's older count lands after the zero. The next report must write it over,
    # or the page counts those answers twice (written and "answered") until another arrives.
    watch = SlotWatch()
    calls = JudgeCalls(chunk.pk, chunk.experiment_id, watch)
    calls.batch(10)
    watch.finished = 5
    calls.report()
    calls.settle()  # the mini-batch's commit: its 5 results are written
    _chunk_counts(chunk.pk, calls_answered=5)  # the keeper's write, read before the commit
    calls.report()  # nothing answered since
    chunk.refresh_from_db()
    assert chunk.calls_answered == 0
