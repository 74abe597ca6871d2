"""Pairwise runs on real worker processes, PostgreSQL and a private Redis: a run launched by the
service completes on the llm queue with every pair paid for once (two processes, answers slower
than the lease), and cancel drops the judge's calls in flight and ends the run cancelled."""

import pytest

from experiments.models import ExperimentStatus, PairwiseResult, PairwiseRun
from experiments.pairwise import services
from tests.experiments.conftest import NO_REAPER, wait_for
from tests.support.pairwise import N

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]


def status_of(run) -> str:
    return PairwiseRun.objects.get(pk=run.pk).status


def launch(workspace, user, experiments, judge, **options):
    return services.pairwise_run_create(
        workspace=workspace,
        user=user,
        name="on workers",
        experiments=experiments,
        evaluator_version=judge,
        **options,
    )


def test_a_pairwise_run_completes_on_workers_paying_once_per_call(
    workspace, user, pw_apps, pw_judge, llm_server, worker
):
    x, y = pw_apps("X", "Y")
    llm_server.set_latency(0.5)  # a chunk's 12 calls, one at a time, outlast the 3 s lease
    process = worker(ASSAY_EXPERIMENT_STALE_S="1")
    run = launch(workspace, user, [x, y], pw_judge, chunk_size=10, concurrency=1)
    wait_for(lambda: status_of(run) == ExperimentStatus.COMPLETED, 120, "completion", [process])
    assert PairwiseResult.objects.filter(run=run).count() == N
    assert len(llm_server.chat_requests()) == 2 * N  # both orders of every pair, once
    run.refresh_from_db()
    assert run.summary["pairs"][0]["pairs"] == N and run.chunks_done == 2


def test_cancel_drops_the_judges_calls_in_flight(
    workspace, user, pw_apps, pw_judge, llm_server, worker
):
    x, y = pw_apps("X", "Y")
    llm_server.set_latency(60.0)
    process = worker(concurrency=1, **NO_REAPER)
    run = launch(workspace, user, [x, y], pw_judge, chunk_size=20, concurrency=4)
    wait_for(lambda: llm_server.max_in_flight >= 4, 60, "calls in flight", [process])
    services.pairwise_run_cancel(run=run)
    wait_for(lambda: status_of(run) == ExperimentStatus.CANCELLED, 15, "cancelled", [process])
    assert PairwiseResult.objects.filter(run=run).count() == 0  # nothing half-written
    assert len(llm_server.chat_requests()) == 4  # nothing was sent after the cancel
