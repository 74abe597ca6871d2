"""Retrying failed rows of an HTTP-target run: the rows whose call failed (500s, timeouts) are
called again — only those, counted at the local app — then scored; rows whose target answered
are never called again, and the page and the API say how many rows of each kind were retried."""

from collections import Counter

import pytest
from django.urls import reverse

from assay import services as platform
from experiments import scoring as engine
from experiments import services
from experiments.models import Experiment, Result, TargetResult
from tests.experiments.conftest import wait_for
from tests.experiments.test_http_target import SECRET, by_question, row, rows_version, target
from tests.support.factories import make_code_version

TO_TARGET = {"actual_output": "target:actual_output", "reference_output": "column:reference_output"}
TO_COLUMNS = {"actual_output": "column:reply", "reference_output": "column:reference_output"}
# answered / a 500 then an answer / too slow then an answer / a 503 every time
ROWS = [
    row("ok1"),
    row("ok2"),
    row("ok3", reply="Lyon"),
    row("flaky", script="500,ok"),
    row("slow", script="hang:4,ok"),
    row("down", script="503"),
]


def create(workspace, user, app, *, launch=True):
    platform.secret_named_save(
        workspace=workspace, name="APP_TOKEN", value=SECRET, origins=[app.origin]
    )
    on_target = make_code_version(workspace=workspace, user=user, name="On target")
    on_columns = make_code_version(workspace=workspace, user=user, name="On columns")
    return services.experiment_create(
        workspace=workspace,
        user=user,
        name="flaky app",
        evalset_version=rows_version(workspace, user, ROWS),
        bindings=[
            {"evaluator_version": on_target, "mapping": TO_TARGET},
            {"evaluator_version": on_columns, "mapping": TO_COLUMNS},
        ],
        target=target(app, max_retries=0, timeout_s=2),
        launch=launch,
    )


def calls(app) -> Counter:
    return Counter(r.body["question"] for r in app.requests)


def on_target(experiment) -> dict:
    results = Result.objects.filter(experiment=experiment, binding__position=0)
    return {r.item.data["question"]["text"]: r for r in results.select_related("item")}


def test_retry_calls_only_the_failed_target_rows_then_scores_them(workspace, user, app, api, web):
    experiment = engine.experiment_run_inline(experiment_id=create(workspace, user, app).pk)
    first = on_target(experiment)
    assert {q: r.status for q, r in first.items() if r.status != "success"} == {
        "flaky": "skipped",
        "slow": "skipped",
        "down": "skipped",
    }
    assert calls(app) == Counter({q["question"]: 1 for q in ROWS})
    page = web.get(
        reverse("experiments:detail", kwargs={"ws": workspace.slug, "id": experiment.public_id})
    )
    assert "Retry 3 failed rows (3 target, 0 evaluator)" in page.content.decode()
    columns_before = {
        r.pk: r.attempt for r in Result.objects.filter(experiment=experiment, binding__position=1)
    }

    response = api.post(f"/api/v1/experiments/{experiment.public_id}/retry-failed/")
    assert response.status_code == 202, response.content
    body = response.json()
    assert (body["retried"], body["target_rows"], body["evaluator_rows"]) == (3, 3, 0)
    done = engine.experiment_run_inline(experiment_id=experiment.pk)

    assert done.status == "completed" and done.retry_round == 1
    assert done.results_done == done.results_total == 12
    # exactly the three failed rows were called again, once each; the answered ones never
    assert calls(app) == Counter({"ok1": 1, "ok2": 1, "ok3": 1, "flaky": 2, "slow": 2, "down": 2})
    targets = by_question(done, TargetResult)
    assert {q: t.status for q, t in targets.items()} == {
        "ok1": "success", "ok2": "success", "ok3": "success",
        "flaky": "success", "slow": "success", "down": "error",
    }  # fmt: skip
    assert targets["flaky"].retry_round == 1 and targets["ok1"].retry_round == 0
    assert "HTTP 503" in targets["down"].error
    after = on_target(done)
    assert after["flaky"].verdict == after["slow"].verdict == "pass"
    assert after["flaky"].attempt == after["slow"].attempt == 1
    assert after["down"].status == "skipped" and "HTTP 503" in after["down"].error
    assert {q: after[q].attempt for q in ("ok1", "ok2", "ok3")} == {"ok1": 0, "ok2": 0, "ok3": 0}
    # the binding reading columns only had nothing to redo
    columns_after = {
        r.pk: r.attempt for r in Result.objects.filter(experiment=done, binding__position=1)
    }
    assert columns_after == columns_before and set(columns_after.values()) == {0}

    # the page: the one row left, and what a retry of it says
    response = web.post(
        reverse("experiments:retry", kwargs={"ws": workspace.slug, "id": done.public_id}),
        follow=True,
    )
    text = response.content.decode()
    assert "Retrying 1 failed rows: 1 target rows are called again, then scored" in text
    assert "0 evaluator rows are scored again" in text
    again = engine.experiment_run_inline(experiment_id=done.pk)
    assert again.retry_round == 2 and calls(app)["down"] == 3 and sum(calls(app).values()) == 10


def test_a_rescore_has_no_target_rows_to_retry(workspace, user, app, api):
    source = engine.experiment_run_inline(experiment_id=create(workspace, user, app).pk)
    made = api.post(
        f"/api/v1/experiments/{source.public_id}/rescore/",
        {"bindings": [{"evaluator_version": "On target@1.0.0", "mapping": TO_TARGET}]},
        format="json",
    )
    assert made.status_code == 202, made.content
    rescored = engine.experiment_run_inline(
        experiment_id=Experiment.objects.get(public_id=made.json()["id"]).pk
    )
    before = sum(calls(app).values())
    response = api.post(f"/api/v1/experiments/{rescored.public_id}/retry-failed/")
    # its failed rows are the source's: copying them again would change nothing
    assert response.status_code == 400
    assert "no failed rows" in response.json()["error"]["message"]
    assert sum(calls(app).values()) == before


@pytest.mark.django_db(transaction=True)
def test_a_retry_through_the_worker_recalls_the_failed_rows(
    workspace, user, app, api, celery_worker_inproc
):
    experiment = create(workspace, user, app)

    def status():
        return Experiment.objects.get(pk=experiment.pk)

    wait_for(lambda: status().status == "completed", 60, "the first run")
    response = api.post(f"/api/v1/experiments/{experiment.public_id}/retry-failed/")
    assert response.status_code == 202, response.content
    assert response.json()["target_rows"] == 3
    wait_for(lambda: status().status == "completed" and status().retry_round == 1, 60, "the retry")
    assert calls(app) == Counter({"ok1": 1, "ok2": 1, "ok3": 1, "flaky": 2, "slow": 2, "down": 2})
    verdicts = {q: r.verdict for q, r in on_target(status()).items()}
    assert verdicts == {
        "ok1": "pass", "ok2": "pass", "ok3": "fail",
        "flaky": "pass", "slow": "pass", "down": "unknown",
    }  # fmt: skip
    # one key per row, the same when the row is called again
    keys = {}
    for request in app.requests:
        keys.setdefault(request.body["question"], set()).add(request.headers["Idempotency-Key"])
    assert all(len(found) == 1 for found in keys.values()) and len(keys) == 6
