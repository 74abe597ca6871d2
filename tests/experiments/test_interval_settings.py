"""Interval settings per run (method, resamples, confidence, minimum sample, garak's exact
resampling), defaults per workspace: used by the aggregates, shown on the dashboard card and
written to garak's eval record."""

import json

import pytest

from experiments import scoring as engine
from experiments import services
from experiments.results.exports import export_stream
from experiments.stats.bootstrap import bootstrap_ci
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(workspace, user):
    return make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40)), (
        make_code_version(workspace=workspace, user=user)
    )


def run(workspace, user, setup, **options):
    version, check = setup
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=options.pop("name", "run"),
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        launch=True,
        **options,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def eval_record(experiment):
    lines = "".join(export_stream(experiment, "report")).splitlines()
    return next(r for r in map(json.loads, lines) if r["entry_type"] == "eval")


def test_a_runs_settings_decide_its_interval_and_are_written_down(workspace, user, setup, web):
    interval = {"iterations": 2000, "confidence": 0.9, "exact_garak": True, "seed": 42}
    done = run(workspace, user, setup, interval=interval)
    summary = done.aggregates.get().summary
    assert summary["fail_rate_ci"] == list(
        bootstrap_ci(20, 20, iterations=2000, confidence=0.9, seed=42, exact_garak=True)
    )
    record = eval_record(done)
    assert record["confidence"] == 0.9
    assert record["interval_settings"] == {
        "method": "bootstrap",
        "iterations": 2000,
        "confidence": 0.9,
        "min_sample": 30,
        "exact_garak": True,
        "seed": 42,
    }
    page = web.get(f"/w/acme/experiments/{done.public_id}/").content.decode()
    assert "90% bootstrap, 2,000 resamples, n ≥ 30, garak&#x27;s exact resampling (seed 42)" in page


def test_method_none_computes_no_interval(workspace, user, setup, web):
    done = run(workspace, user, setup, interval={"method": "none"})
    summary = done.aggregates.get().summary
    assert summary["fail_rate_ci"] is None and summary["mean_ci"] is None
    assert "confidence_method" not in eval_record(done)
    page = web.get(f"/w/acme/experiments/{done.public_id}/").content.decode()
    assert "intervals are off for this run" in page


def test_a_larger_minimum_sample_withholds_the_interval(workspace, user, setup):
    done = run(workspace, user, setup, interval={"min_sample": 100})
    assert done.aggregates.get().summary["fail_rate_ci"] is None


def test_workspace_defaults_apply_and_a_run_overrides_them(api, workspace, user, setup):
    response = api.put(
        "/api/v1/experiments/interval-defaults/",
        {"interval": {"iterations": 500, "min_sample": 10}},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["interval"]["iterations"] == 500
    assert api.get("/api/v1/experiments/interval-defaults/").json()["interval"]["min_sample"] == 10
    workspace.refresh_from_db()
    inherited = run(workspace, user, setup, name="inherits")
    assert inherited.interval["iterations"] == 500 and inherited.interval["min_sample"] == 10
    own = run(workspace, user, setup, name="own", interval={"iterations": 3000})
    assert own.interval["iterations"] == 3000 and own.interval["min_sample"] == 10


@pytest.mark.parametrize(
    ("interval", "message"),
    [
        ({"method": "wilson"}, "method is bootstrap or none"),
        ({"iterations": 5}, "iterations is a whole number"),
        ({"confidence": 1.0}, "confidence is a number"),
        ({"exact_garak": "yes"}, "exact_garak is true or false"),
        ({"resamples": 10}, "Unknown field 'resamples'"),
    ],
)
def test_bad_settings_are_named_and_nothing_saved(api, setup, interval, message):
    version, check = setup
    body = {
        "name": "bad",
        "evalset_version": str(version.public_id),
        "bindings": [{"evaluator_version": str(check.public_id)}],
        "interval": interval,
    }
    response = api.post("/api/v1/experiments/", body, format="json")
    assert response.status_code == 400
    assert message in str(response.json()["error"]["details"]["interval"])
    refused = api.put(
        "/api/v1/experiments/interval-defaults/", {"interval": interval}, format="json"
    )
    assert refused.status_code == 400
    assert not version.experiments.exists()
