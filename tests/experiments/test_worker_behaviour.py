"""Against real worker processes, PostgreSQL and a private Redis: a healthy slow chunk is never
run twice, cancel stops running work, one workspace's runaways do not starve another's, and a
chunk whose task raised fails its run at once."""

import pytest

from experiments import services
from experiments.models import Experiment, ExperimentChunk, ExperimentStatus, Result
from experiments.scoring.chunks import CODE_MINI_BATCH
from tests.experiments.conftest import NO_REAPER, wait_for
from tests.support.factories import (
    make_code_version,
    make_evalset_version,
    make_llm_version,
    make_provider,
    qa_rows,
)

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

COLUMNS = [
    {"name": n, "content_type": "Text", "required": True, "description": ""}
    for n in ("input", "output")
]
SLOW_ROW = """def exec_evaluation(turn):
    total = 0
    for i in range({loops}):
        total += i
    return EvalOutput(score=1.0, reason="slow")
"""
# Rows whose reference is "slow" take ~0.2 s each; the others return at once.
SLOW_SECOND_HALF = """def exec_evaluation(turn):
    if turn["evaluate_dataset_fields"]["reference_output"]["text"] == "slow":
        total = 0
        for i in range(4000000):
            total += i
    return EvalOutput(score=1.0, reason="done")
"""


def status_of(experiment) -> str:
    return Experiment.objects.get(pk=experiment.pk).status


def launch(workspace, user, version, evaluator_version, **options):
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=options.pop("name", "run"),
        evalset_version=version,
        bindings=[{"evaluator_version": evaluator_version}],
        **options,
    )
    return services.experiment_launch(experiment=experiment)


def test_a_healthy_slow_chunk_is_never_run_twice(workspace, user, llm_server, worker):
    # Each answer takes 1 s and the experiment calls one at a time: one mini-batch of 8 rows
    # works for 8 s, far past the 3 s lease and the 1 s staleness. The lease is renewed on a
    # timer, so the reaper never hands the chunk to the second worker process.
    llm_server.set_latency(1.0)
    provider = make_provider(workspace=workspace, server=llm_server)
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    rows = [{"input": f"q{i}", "output": "a"} for i in range(8)]
    version = make_evalset_version(workspace=workspace, user=user, columns=COLUMNS, rows=rows)
    process = worker(ASSAY_EXPERIMENT_STALE_S="1")
    experiment = launch(workspace, user, version, judge, concurrency=1)
    wait_for(
        lambda: status_of(experiment) == ExperimentStatus.COMPLETED, 90, "completion", [process]
    )
    assert Result.objects.filter(experiment=experiment).count() == 8
    assert len(llm_server.chat_requests()) == 8  # every row paid for once


def test_cancel_kills_a_running_code_batch(workspace, user, worker):
    # One chunk of two code mini-batches: quick rows, then rows of ~0.2 s each, so the second
    # mini-batch works for minutes and a check between mini-batches would see the cancel only
    # after it.
    batch = CODE_MINI_BATCH
    rows = [
        {
            "input": f"q{i}",
            "actual_output": "a",
            "reference_output": "fast" if i < batch else "slow",
        }
        for i in range(2 * batch)
    ]
    slow = make_code_version(workspace=workspace, user=user, name="Slow", source=SLOW_SECOND_HALF)
    version = make_evalset_version(workspace=workspace, user=user, rows=rows)
    process = worker(concurrency=1, **NO_REAPER)
    experiment = launch(workspace, user, version, slow, chunk_size=2 * batch)
    wait_for(
        lambda: Result.objects.filter(experiment=experiment).count() == batch,
        60,
        "the first mini-batch",
        [process],
    )
    services.experiment_cancel(experiment=experiment)
    wait_for(
        lambda: status_of(experiment) == ExperimentStatus.CANCELLED, 15, "cancelled", [process]
    )
    assert Result.objects.filter(experiment=experiment).count() == batch  # nothing half-written
    # The one worker process is free again at once: its sandbox child was killed.
    quick = make_code_version(workspace=workspace, user=user, name="Quick")
    again = launch(workspace, user, version, quick, name="after")
    wait_for(lambda: status_of(again) == ExperimentStatus.COMPLETED, 20, "the next run", [process])
    assert status_of(experiment) == ExperimentStatus.CANCELLED


def test_cancel_drops_llm_calls_in_flight(workspace, user, llm_server, worker):
    llm_server.set_latency(60.0)
    provider = make_provider(workspace=workspace, server=llm_server)
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    rows = [{"input": f"q{i}", "output": "a"} for i in range(20)]
    version = make_evalset_version(workspace=workspace, user=user, columns=COLUMNS, rows=rows)
    process = worker(concurrency=1, **NO_REAPER)
    experiment = launch(workspace, user, version, judge, concurrency=4)
    wait_for(lambda: llm_server.max_in_flight >= 4, 60, "calls in flight", [process])
    services.experiment_cancel(experiment=experiment)
    wait_for(
        lambda: status_of(experiment) == ExperimentStatus.CANCELLED, 15, "cancelled", [process]
    )
    assert Result.objects.filter(experiment=experiment).count() == 0
    assert len(llm_server.chat_requests()) == 4  # nothing was sent after the cancel


def small_run_behind_runaways(
    workspace, user, make_user, process, *, loops: int, rows: int, small_rows: int, wait_s: float
) -> tuple[list[Experiment], Experiment]:
    """Two runaway runs of `workspace` (a check counting to `loops` a row, `rows` rows in chunks
    of 10) once their first result is in, then a quick run of `small_rows` rows of another
    workspace, waited for (up to `wait_s`) until it completed: (runaways, small run)."""
    from assay import services as platform

    slow = make_code_version(
        workspace=workspace, user=user, name="Slow", source=SLOW_ROW.format(loops=loops)
    )
    big = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows))
    runaways = [
        launch(workspace, user, big, slow, name=f"runaway {i}", chunk_size=10) for i in range(2)
    ]
    wait_for(
        lambda: Result.objects.filter(experiment__in=runaways).exists(), 60, "runaways", [process]
    )
    bob = make_user("bob")
    other = platform.workspace_create(name="Other", slug="other-team", owner=bob)
    small_set = make_evalset_version(
        workspace=other, user=bob, rows=qa_rows(small_rows), name="Small"
    )
    quick = make_code_version(workspace=other, user=bob, name="Quick")
    small = launch(other, bob, small_set, quick, name="small")
    wait_for(
        lambda: status_of(small) == ExperimentStatus.COMPLETED, wait_s, "the small run", [process]
    )
    return runaways, small


def test_a_small_run_of_another_workspace_is_not_starved(workspace, user, make_user, worker):
    runaways, small = small_run_behind_runaways(
        workspace, user, make_user, worker(), loops=200_000, rows=200, small_rows=10, wait_s=60
    )
    assert [status_of(r) for r in runaways] == [ExperimentStatus.RUNNING] * 2
    assert Result.objects.filter(experiment=small).count() == 10
    for runaway in runaways:
        services.experiment_cancel(experiment=runaway)


def test_a_chunk_whose_task_raised_fails_its_run_at_once(workspace, user, worker):
    from evaluators.models import EvaluatorVersion

    good = make_code_version(workspace=workspace, user=user)
    # A version the sandbox refuses to even start (no such language): the task raises.
    broken = EvaluatorVersion.objects.create(
        evaluator=good.evaluator,
        version="9.9.9",
        kind="code",
        score_meaning="quality",
        default_policy=good.default_policy,
        config={**good.config, "language": "cobol"},
        config_hash="x",
    )
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(10))
    process = worker(ASSAY_EXPERIMENT_STALE_S="600", ASSAY_CHUNK_LEASE_S="600")
    experiment = launch(workspace, user, version, broken)
    wait_for(lambda: status_of(experiment) == ExperimentStatus.FAILED, 30, "failed", [process])
    experiment.refresh_from_db()
    assert "ValueError" in experiment.error_message and "language" in experiment.error_message
    chunk = ExperimentChunk.objects.get(experiment=experiment)
    assert chunk.status == "failed" and "cobol" in chunk.error
