"""An HTTP target's rows are written and scored by the range's code checks while the batch's
other calls are still in flight, when the worker also serves the code queue; a worker that
serves only the calls leaves the checks to the code chunk. Real worker processes, PostgreSQL,
a private Redis and the scripted app over real HTTP."""

import threading
from types import SimpleNamespace

import pytest

from assay import celery as assay_celery
from experiments import services
from experiments.models import (
    ChunkKind,
    ChunkStatus,
    Experiment,
    ExperimentChunk,
    Result,
    TargetResult,
)
from experiments.scoring import chunks
from tests.experiments.conftest import wait_for
from tests.experiments.test_http_target import row, rows_version, target

pytestmark = pytest.mark.django_db(transaction=True)

ROWS = 30  # answered at once, and one more row whose answer takes HANG_S
HANG_S = 8


def launched(workspace, user, contains, app, rows=None):
    """A launched run of the app's answers checked by `contains`: by default ROWS answered at
    once after one whose answer takes HANG_S; no retries."""
    rows = rows or [row("slow", script=f"hang:{HANG_S}")] + [row(f"q{i}") for i in range(ROWS)]
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="streamed",
        evalset_version=rows_version(workspace, user, rows),
        bindings=[{"evaluator_version": contains, "mapping": MAPPING}],
        target=target(app, headers={}, timeout_s=HANG_S + 5, max_retries=0),
        concurrency=8,
    )
    return services.experiment_launch(experiment=experiment)


MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


def target_chunk_status(experiment) -> str:
    chunk = ExperimentChunk.objects.get(experiment=experiment, kind=ChunkKind.TARGET)
    return chunk.status


def finished(experiment) -> Experiment:
    wait_for(
        lambda: Experiment.objects.get(pk=experiment.pk).status == "completed",
        HANG_S + 30,
        "the run to complete",
    )
    return Experiment.objects.get(pk=experiment.pk)


@pytest.mark.integration
def test_rows_are_scored_while_the_last_call_is_in_flight(workspace, user, contains, app, worker):
    worker()  # serves every queue, as the embedded default and compose run it
    experiment = launched(workspace, user, contains, app)
    wait_for(lambda: app.calls == ROWS + 1, 30, "every call to reach the app")
    scored = Result.objects.filter(experiment=experiment)
    wait_for(lambda: scored.count() == ROWS, HANG_S - 2, "the answered rows' checks")
    # the slow row's call is still in flight: its chunk has not finished, nothing of it is written
    assert target_chunk_status(experiment) == ChunkStatus.RUNNING
    assert TargetResult.objects.filter(experiment=experiment).count() == ROWS
    assert set(scored.values_list("verdict", flat=True)) == {"pass"}

    done = finished(experiment)
    assert Result.objects.filter(experiment=experiment).count() == ROWS + 1  # one per row
    assert (done.results_done, done.targets_done) == (ROWS + 1, ROWS + 1)
    assert app.calls == ROWS + 1  # the code chunk found every row scored: nothing called again


@pytest.mark.integration
def test_a_worker_serving_only_the_calls_leaves_the_checks_to_the_code_chunk(
    workspace, user, contains, app, worker
):
    worker(concurrency=1, queues="default,llm")
    worker(concurrency=1, queues="code")
    experiment = launched(workspace, user, contains, app)
    wait_for(lambda: app.calls == ROWS + 1, 30, "every call to reach the app")
    wait_for(
        lambda: (
            TargetResult.objects.filter(experiment=experiment).count() == 0
            and target_chunk_status(experiment) == ChunkStatus.RUNNING
        ),
        5,
        "the target chunk at work",
    )
    assert not Result.objects.filter(experiment=experiment).exists()

    done = finished(experiment)
    assert Result.objects.filter(experiment=experiment).count() == ROWS + 1
    assert (done.results_done, done.targets_done) == (ROWS + 1, ROWS + 1)


def test_rows_stream_only_where_the_code_queue_is_served(
    workspace, user, contains, app, monkeypatch
):
    experiment = launched(workspace, user, contains, app)
    chunk = ExperimentChunk.objects.get(experiment=experiment, kind=ChunkKind.TARGET)
    items = chunks._chunk_items(chunk)
    for queues, streams in [(None, False), ({"llm"}, False), ({"llm", "code"}, True)]:
        monkeypatch.setattr(assay_celery, "_QUEUES", queues and frozenset(queues))
        lease = SimpleNamespace(stop=threading.Event())  # what it reads before rows land
        streamed = chunks._landed_rows(chunk, lease, items, 0)
        assert (streamed is not None) == streams
        if streamed:
            streamed.stop()


@pytest.mark.integration
def test_a_retry_round_scores_the_rows_called_again_as_they_land(
    workspace, user, contains, app, worker
):
    worker()
    flaky = [row(f"flaky{i}", script="500,ok") for i in range(5)]
    rows = flaky + [row(f"ok{i}") for i in range(5)]
    first = finished(launched(workspace, user, contains, app, rows))
    verdicts = Result.objects.filter(experiment=first).values_list("verdict", flat=True)
    assert sorted(verdicts) == ["pass"] * 5 + ["unknown"] * 5  # the 500s: no output to check

    services.experiment_retry_failed(experiment=first)  # queued again, in its transaction
    done = finished(first)
    assert app.calls == 15  # the five failed rows once more, the others never
    results = Result.objects.filter(experiment=done)
    assert results.count() == 10 and set(results.values_list("verdict", flat=True)) == {"pass"}
    assert (done.results_done, done.targets_done) == (10, 10)
