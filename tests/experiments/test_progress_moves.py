"""Progress while a target answers: its outputs are counted as its calls finish (before the
mini-batch commits), the calls in flight are shown, and the ETA never grows while nothing
lands — it counts down, then says "waiting"."""

from datetime import timedelta
from itertools import pairwise

import pytest
from django.utils import timezone

from experiments import selectors, services
from experiments.models import Experiment, ExperimentStatus
from tests.experiments.conftest import wait_for
from tests.support.app_server import ScriptedApp
from tests.support.factories import (
    make_code_version,
    make_evalset_version,
    make_llm_version,
    make_provider,
    qa_rows,
)

ROWS = 12
JUDGE_MAPPING = {"input": "column:input", "output": "column:actual_output"}
MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


@pytest.fixture
def slow_app():
    with ScriptedApp(latency_s=0.6) as server:
        yield server


def launch_http(workspace, user, app, *, rows=ROWS) -> Experiment:
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows))
    check = make_code_version(workspace=workspace, user=user)
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name="slow app",
        evalset_version=version,
        bindings=[{"evaluator_version": check, "mapping": MAPPING}],
        target={"kind": "http", "url": app.url, "body": {"q": "{{input}}"}, "output": "answer"},
        concurrency=2,
        launch=True,
    )


@pytest.mark.django_db(transaction=True)
def test_target_outputs_and_calls_in_flight_move_before_the_batch_commits(
    celery_worker_inproc, workspace, user, slow_app
):
    experiment = launch_http(workspace, user, slow_app)
    seen: list[dict] = []

    def finished() -> bool:
        experiment.refresh_from_db()
        progress = selectors.experiment_progress(experiment)
        if experiment.status == ExperimentStatus.RUNNING:
            seen.append(progress)
        return not experiment.is_active

    wait_for(finished, 120, "the run to finish")
    assert experiment.status == ExperimentStatus.COMPLETED
    # one mini-batch holds every row: without counting calls, outputs went 0 → 12 at once
    partial = [p["targets_done"] for p in seen if 0 < p["targets_done"] < ROWS]
    assert partial, [p["targets_done"] for p in seen]
    assert partial == sorted(partial)  # never backwards
    assert max(p["calls_in_flight"] for p in seen) == 2  # the run's concurrency
    assert all(p["results_done"] == 0 for p in seen if p["targets_done"] < ROWS)
    moving = [p for p in seen if 0 < p["targets_done"] < ROWS]
    assert moving[0]["overall_percent"] > 0  # the bar moves while the target answers
    assert moving[0]["targets_per_s"] > 0 and moving[0]["eta_s"] is not None
    final = selectors.experiment_progress(experiment)
    assert final["targets_done"] == ROWS and final["results_done"] == ROWS
    assert final["calls_in_flight"] == 0 and final["overall_percent"] == 100.0


@pytest.mark.django_db(transaction=True)
def test_judge_answers_count_before_their_mini_batch_is_written(
    celery_worker_inproc, workspace, user, llm_server_factory
):
    provider = make_provider(workspace=workspace, server=llm_server_factory(latency_s=0.6))
    judge = make_llm_version(workspace=workspace, user=user, provider=provider)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(ROWS))
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="slow judge",
        evalset_version=version,
        bindings=[{"evaluator_version": judge, "mapping": JUDGE_MAPPING}],
        concurrency=2,
        launch=True,
    )
    seen: list[dict] = []

    def finished() -> bool:
        experiment.refresh_from_db()
        if experiment.status == ExperimentStatus.RUNNING:
            seen.append(selectors.experiment_progress(experiment))
        return not experiment.is_active

    wait_for(finished, 120, "the run to finish")
    assert experiment.status == ExperimentStatus.COMPLETED
    # one mini-batch writes every result: before, the count went 0 → 12 at once
    early = [p for p in seen if p["results_done"] == 0 and p["results_answered"] > 0]
    assert early, [(p["results_done"], p["results_answered"]) for p in seen]
    partial = [p["results_answered"] for p in early if p["results_answered"] < ROWS]
    assert partial and partial == sorted(partial)
    assert max(p["judge_calls_in_flight"] for p in seen) == 2
    assert all(p["results_answered"] <= ROWS for p in seen)
    final = selectors.experiment_progress(experiment)
    assert final["results_done"] == final["results_answered"] == ROWS
    assert final["judge_calls_in_flight"] == 0


@pytest.mark.django_db
def test_the_eta_counts_down_while_idle_then_says_waiting(workspace, user):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(10))
    check = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="idle",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        launch=True,
    )
    start = timezone.now()
    moved = start + timedelta(seconds=4)
    Experiment.objects.filter(pk=experiment.pk).update(
        status=ExperimentStatus.RUNNING, started_at=start, progressed_at=moved, results_done=5
    )
    experiment.refresh_from_db()
    at = [selectors.experiment_progress(experiment, moved + timedelta(seconds=s)) for s in range(9)]
    etas = [p["eta_s"] for p in at]
    assert etas[0] == 4  # 5 of 10 in 4 s: 4 s more
    # nothing lands: the figure only goes down, and an overdue run waits instead of "0 s"
    assert all(b is None or (a is not None and b <= a) for a, b in pairwise(etas))
    assert etas[4] is None and at[4]["waiting"] and not at[0]["waiting"]
    later = selectors.experiment_progress(experiment, moved + timedelta(seconds=60))
    assert later["eta_s"] is None and later["waiting"]
    # before anything lands there is nothing to extrapolate, and nothing to wait for yet
    Experiment.objects.filter(pk=experiment.pk).update(results_done=0, progressed_at=None)
    experiment.refresh_from_db()
    fresh = selectors.experiment_progress(experiment, moved)
    assert fresh["eta_s"] is None and not fresh["waiting"]


@pytest.mark.django_db
def test_the_list_bar_counts_target_outputs(web, api, workspace, user):
    app_url = "http://127.0.0.1:9/answer"  # never called: the run is only counted here
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(10))
    check = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="half answered",
        evalset_version=version,
        bindings=[{"evaluator_version": check, "mapping": MAPPING}],
        target={"kind": "http", "url": app_url, "body": {"q": "{{input}}"}, "output": "answer"},
        launch=True,
    )
    Experiment.objects.filter(pk=experiment.pk).update(
        status=ExperimentStatus.RUNNING, targets_done=5
    )
    page = web.get("/w/acme/experiments/").content.decode()
    assert 'aria-valuenow="25"' in page  # 5 of 10 outputs, 0 of 10 results: was 0
    # the API says the same, apart
    progress = api.get(f"/api/v1/experiments/{experiment.public_id}/").json()["progress"]
    assert (progress["targets_done"], progress["targets_total"]) == (5, 10)
    assert (progress["results_done"], progress["results_answered"]) == (0, 0)
    assert progress["calls_in_flight"] == 0 and progress["overall_percent"] == 25.0
