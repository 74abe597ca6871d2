"""One push must not poison crash recovery for every workspace.

Every pushed usage number (latency, tokens, cost) is finite, non-negative and below its stated
maximum (`assay.safety.caps.USAGE_MAXIMA`), or the push is a 400 naming the field; and a run
whose stored numbers cannot be summed (rows stored before the bound) fails on its own in the
reaper's pass, while another workspace's run whose worker died is revived and completes.
"""

import json
import logging
from datetime import timedelta

import pytest
from django.db import InterfaceError, OperationalError, connection
from django.utils import timezone

from assay.safety.caps import USAGE_MAXIMA
from experiments.models import Experiment, ExperimentChunk, ExperimentStatus, TargetResult
from experiments.runs import lifecycle
from experiments.scoring import EXPERIMENT
from tests.experiments.conftest import wait_for
from tests.support.app_server import ScriptedApp
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db(transaction=True)

MAPPING = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}


def launch(api, workspace, user, *, external: bool, rows: int = 6, launch=True) -> Experiment:
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(rows))
    contains = make_code_version(workspace=workspace, user=user)
    body = {
        "name": "pushed" if external else "column run",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": str(contains.public_id)}],
        "launch": launch,
    }
    if external:
        body["target"] = {"kind": "external"}
        body["bindings"][0]["mapping"] = MAPPING
    response = api.post("/api/v1/experiments/", body, format="json")
    assert response.status_code in (201, 202), response.content
    return Experiment.objects.get(public_id=response.json()["id"])


def item_ids(experiment: Experiment) -> list[str]:
    items = experiment.evalset_version.items.order_by("position")
    return [str(i) for i in items.values_list("item_id", flat=True)]


def push(api, experiment, outputs):
    return api.post(
        f"/api/v1/experiments/{experiment.public_id}/outputs/", {"outputs": outputs}, format="json"
    )


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("cost", 1e308),
        ("cost", USAGE_MAXIMA["cost"] * 2),
        ("tokens_in", 10**18),
        ("tokens_in", 2**31),  # past PostgreSQL's integer column: was a 500 there
        ("tokens_out", 2**31 - 1),
        ("tokens_out", 1.5),
        ("latency_ms", 1e308),
        ("latency_ms", -0.5),
    ],
)
def test_a_pushed_number_out_of_bounds_is_a_400_naming_the_field(
    api, workspace, user, field, value
):
    experiment = launch(api, workspace, user, external=True)
    items = item_ids(experiment)
    good = {"item_id": items[0], "actual_output": "Paris"}
    response = push(
        api, experiment, [good, {"item_id": items[1], "actual_output": "x", field: value}]
    )
    assert response.status_code == 400, response.content
    [problem] = response.json()["error"]["details"]["outputs[1]"]
    assert problem.startswith(f"{field} must be") and f"{USAGE_MAXIMA[field]:,}" in problem
    assert not TargetResult.objects.filter(experiment=experiment).exists()


def test_a_pushed_infinity_is_a_400(api, workspace, user):
    # 1e400 is valid JSON that Python reads as inf (refused before the bounds: a guard)
    experiment = launch(api, workspace, user, external=True)
    [item] = item_ids(experiment)[:1]
    entry = json.dumps({"item_id": item, "actual_output": "x", "cost": 0})
    body = '{"outputs": [' + entry.replace('"cost": 0', '"cost": 1e400') + "]}"
    response = api.post(
        f"/api/v1/experiments/{experiment.public_id}/outputs/",
        body,
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    assert "outputs" in response.json()["error"]["details"]  # the body's JSON check refuses it
    assert not TargetResult.objects.filter(experiment=experiment).exists()


def test_numbers_within_bounds_are_stored(api, workspace, user):
    experiment = launch(api, workspace, user, external=True)
    items = item_ids(experiment)
    top = {k: USAGE_MAXIMA[k] for k in ("latency_ms", "tokens_in", "tokens_out", "cost")}
    response = push(api, experiment, [{"item_id": items[0], "actual_output": "Paris", **top}])
    assert response.status_code == 202, response.content
    row = TargetResult.objects.get(experiment=experiment)
    assert (row.latency_ms, row.tokens_in, row.tokens_out, row.cost) == tuple(top.values())


def poison(experiment: Experiment) -> None:
    """What a push stored before the bound: numbers whose sums overflow (PostgreSQL's column
    holds 32-bit tokens, so its poison is the cost; SQLite's is the tokens' 64-bit SUM)."""
    rows = TargetResult.objects.filter(experiment=experiment)
    if connection.vendor == "postgresql":
        rows.update(cost=1e308)
    else:
        rows.update(tokens_in=10**18, cost=1e308)


def started_without_messages(api, workspace, user) -> Experiment:
    """A run created through the API, then launched and started as its start task would
    (chunk rows, queued → running) without any broker message: as if the messages were lost."""
    from experiments.services import runs

    draft = launch(api, workspace, user, external=False, launch=False)
    runs._plan_chunks(draft)
    now = timezone.now()
    fields = {"items_total": draft.items_total, "results_total": draft.results_total}
    assert lifecycle.move(EXPERIMENT, draft.pk, "launch", queued_at=now, heartbeat_at=now, **fields)
    assert lifecycle.move(EXPERIMENT, draft.pk, "start", started_at=now, heartbeat_at=now)
    return Experiment.objects.get(pk=draft.pk)


def worker_died(experiment: Experiment) -> ExperimentChunk:
    """The run's chunk was claimed by a worker that then died (its lease expired)."""
    chunk = experiment.chunks.order_by("index").first()
    assert lifecycle.claim(EXPERIMENT, chunk.pk) is not None
    expired = timezone.now() - timedelta(seconds=5)
    ExperimentChunk.objects.filter(pk=chunk.pk).update(lease_expires_at=expired)
    return chunk


def test_a_poisoned_run_fails_alone_and_another_workspace_is_reaped(
    celery_worker_inproc, api, workspace, user, outsider, api_client_for, caplog
):
    from assay.models import Workspace

    # Acme's pushed run has all its outputs and scores; its finishing step was interrupted
    poisoned = launch(api, workspace, user, external=True)
    outputs = [{"item_id": i, "actual_output": "Paris", "cost": 0.5} for i in item_ids(poisoned)]
    assert push(api, poisoned, outputs).status_code == 202
    wait_for(
        lambda: Experiment.objects.get(pk=poisoned.pk).status == ExperimentStatus.COMPLETED,
        30,
        "the pushed run's completion",
    )
    poison(poisoned)
    Experiment.objects.filter(pk=poisoned.pk).update(status=ExperimentStatus.RUNNING)

    # Other's run started and its only chunk's worker died (no message of it is left)
    other = Workspace.objects.get(slug="other")
    stuck = started_without_messages(api_client_for(other, outsider), other, outsider)
    worker_died(stuck)
    from experiments.tasks import reap_stale

    caplog.set_level(logging.ERROR)
    reap_stale()  # raised on every pass before: the other run stayed stuck
    wait_for(
        lambda: Experiment.objects.get(pk=stuck.pk).status == ExperimentStatus.COMPLETED,
        30,
        "the other workspace's run reaped and completed",
    )
    failed = Experiment.objects.get(pk=poisoned.pk)
    assert failed.status == ExperimentStatus.FAILED
    assert "could not be finished" in failed.error_message
    assert any(str(poisoned.pk) in r.getMessage() for r in caplog.records)
    page = api.get(f"/api/v1/experiments/{poisoned.public_id}/")
    assert page.status_code == 200 and page.json()["status"] == "failed"


@pytest.mark.parametrize(
    ("field", "expression"),
    [("tokens_in", "`1000000000000000000`"), ("tokens_out", "`2147483648`"), ("cost", "`1e308`")],
)
def test_an_http_target_number_out_of_bounds_is_a_row_error(
    api, workspace, user, field, expression
):
    # the same bounds for what an HTTP target's JMESPath takes out of the answer (a literal here)
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(1))
    with ScriptedApp() as app:
        target = {"kind": "http", "url": app.url, "body": {"q": "x"}, "output": "answer"}
        body = {"evalset_version": str(version.public_id), "target": {**target, field: expression}}
        response = api.post("/api/v1/experiments/target-test/", body, format="json")
    assert response.status_code == 200, response.content
    tried = response.json()
    assert tried["status"] == "error" and tried["error"].startswith(f"{field}: ")
    assert f"{USAGE_MAXIMA[field]:,}" in tried["error"]


def test_a_poisoned_run_can_be_cancelled(api, workspace, user):
    # outputs stored before the bounds; no worker: started here as its start task would be
    from experiments import scoring as engine

    poisoned = launch(api, workspace, user, external=True)
    engine.experiment_begin(experiment_id=poisoned.pk)
    outputs = [{"item_id": i, "actual_output": "Paris", "cost": 0.5} for i in item_ids(poisoned)]
    assert push(api, poisoned, outputs).status_code == 202
    poison(poisoned)
    response = api.post(f"/api/v1/experiments/{poisoned.public_id}/cancel/")
    assert response.status_code == 202, response.content  # was a 500: settling it raised
    assert response.json()["status"] == "failed"
    assert "could not be finished" in Experiment.objects.get(pk=poisoned.pk).error_message


@pytest.mark.parametrize("error", [OperationalError, InterfaceError])
def test_a_transient_database_error_does_not_fail_the_run(api, workspace, user, error):
    """A deadlock, a timeout or a lost connection is the database's fault, not the run's: the
    pass raises (the next one tries again) and the run stays as it was."""
    from experiments.runs.isolation import run_isolated
    from experiments.scoring import EXPERIMENT

    experiment = launch(api, workspace, user, external=True)
    before = experiment.status
    assert before in (ExperimentStatus.QUEUED, ExperimentStatus.RUNNING)

    def step(**kwargs):
        raise error("deadlock detected")

    with pytest.raises(error):
        run_isolated(EXPERIMENT, experiment.pk, step)
    experiment.refresh_from_db()
    assert experiment.status == before and not experiment.error_message


def test_a_fault_of_the_rows_fails_the_run(api, workspace, user):
    from experiments.runs.isolation import run_isolated
    from experiments.scoring import EXPERIMENT

    experiment = launch(api, workspace, user, external=True)

    def step(**kwargs):
        raise OverflowError("Python int too large to convert to SQLite INTEGER")

    assert run_isolated(EXPERIMENT, experiment.pk, step) is None
    experiment.refresh_from_db()
    assert experiment.status == ExperimentStatus.FAILED
    assert "OverflowError: Python int too large" in experiment.error_message
