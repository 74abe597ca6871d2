"""A run finished before targets_done existed (the column came with 0 for every run) can
still have its failed target rows retried: the retry's subtraction of the rows called again
must not take the counter below zero, which the database refuses (review of issue 28)."""

from collections import Counter

from experiments import scoring as engine
from experiments.models import Experiment
from tests.experiments.test_http_target_retry import calls, create


def test_a_run_from_before_the_target_counter_retries(workspace, user, app, api):
    experiment = engine.experiment_run_inline(experiment_id=create(workspace, user, app).pk)
    Experiment.objects.filter(pk=experiment.pk).update(targets_done=0)  # as the upgrade left it
    response = api.post(f"/api/v1/experiments/{experiment.public_id}/retry-failed/")
    assert response.status_code == 202, response.content
    assert response.json()["target_rows"] == 3
    done = engine.experiment_run_inline(experiment_id=experiment.pk)
    assert done.status == "completed" and done.retry_round == 1
    assert done.targets_done == 6  # exact again once the run ends
    assert calls(app) == Counter({"ok1": 1, "ok2": 1, "ok3": 1, "flaky": 2, "slow": 2, "down": 2})
