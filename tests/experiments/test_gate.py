"""The CI gate on synthetic pairs: noise passes, a real regression fails, and the options
(max drop, unknown rate, the latest baseline) do what they say."""

import random

import pytest

from experiments import engine, services
from tests.support.factories import make_code_version, make_evalset_version

READ_VERDICT = """def exec_evaluation(turn):
    v = turn["evaluate_dataset_fields"]["v"]["text"]
    if v == "unknown":
        return EvalOutput(score=None, reason="cannot tell")
    return EvalOutput(score=1.0 if v == "pass" else 0.0, reason=v)
"""


def pairs(n=200, pass_rate=0.7, down=0, up=0, unknown=0, seed=3):
    """Baseline verdicts, and candidate verdicts with `down` pass→fail, `up` fail→pass flips
    and `unknown` rows that become unknown."""
    rng = random.Random(seed)
    base = ["pass" if rng.random() < pass_rate else "fail" for _ in range(n)]
    cand = list(base)
    passing = [i for i, v in enumerate(base) if v == "pass"]
    failing = [i for i, v in enumerate(base) if v == "fail"]
    for i in passing[:down]:
        cand[i] = "fail"
    for i in failing[:up]:
        cand[i] = "pass"
    for i in passing[down : down + unknown]:
        cand[i] = "unknown"
    return base, cand


@pytest.fixture
def runs(workspace, user):
    """A function that builds a completed baseline and candidate from verdict lists."""
    columns = [
        {"name": n, "content_type": "Text", "required": True, "description": ""}
        for n in ("base", "cand")
    ]
    reader = make_code_version(workspace=workspace, user=user, name="Reader", source=READ_VERDICT)
    variables = {**reader.config["input_variables"][0], "name": "v"}
    from evaluators import services as evaluator_services

    evaluator = reader.evaluator
    config = {**evaluator.draft_config, "input_variables": [variables]}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    reader = evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="2.0.0"
    )

    def build(base, cand, name="run"):
        rows = [{"base": b, "cand": c} for b, c in zip(base, cand, strict=True)]
        version = make_evalset_version(
            workspace=workspace, user=user, rows=rows, columns=columns, name=name
        )
        made = []
        for side in ("base", "cand"):
            experiment = services.experiment_create(
                workspace=workspace,
                user=user,
                name=f"{name} {side}",
                evalset_version=version,
                bindings=[{"evaluator_version": reader, "mapping": {"v": f"column:{side}"}}],
                launch=True,
            )
            made.append(engine.experiment_run_inline(experiment_id=experiment.pk))
        return made

    return build


def gate(api, baseline, candidate, **options):
    query = {"baseline": baseline, "candidate": str(candidate.public_id), **options}
    return api.get("/api/v1/experiments/gate/", query)


def test_noise_passes(api, runs):
    baseline, candidate = runs(*pairs(down=5, up=4))
    response = gate(api, str(baseline.public_id), candidate)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["passed"] is True
    row = body["evaluators"][0]
    assert (row["regressions"], row["improvements"]) == (5, 4)
    assert row["p_worse"] > 0.05 and row["failed"] is False
    assert "Assay gate passed" in body["markdown"]


def test_a_real_regression_fails(api, runs):
    baseline, candidate = runs(*pairs(down=25, up=2))
    body = gate(api, str(baseline.public_id), candidate).json()
    assert body["passed"] is False
    row = body["evaluators"][0]
    assert row["p_worse"] < 0.001 and row["pass_rate_delta_ci"][1] < 0
    assert row["failed"] and "pass rate dropped 11.5 pts" in row["reasons"][0]
    assert "Assay gate failed" in body["markdown"] and "| Reader |" in body["markdown"]


def test_a_significant_drop_within_max_drop_passes(api, runs):
    baseline, candidate = runs(*pairs(n=600, down=30, up=4))
    strict = gate(api, str(baseline.public_id), candidate).json()
    lenient = gate(api, str(baseline.public_id), candidate, max_drop=0.1).json()
    assert strict["passed"] is False and lenient["passed"] is True


def test_too_many_unknowns_fail(api, runs):
    baseline, candidate = runs(*pairs(unknown=30))
    assert gate(api, str(baseline.public_id), candidate).json()["passed"] is True
    body = gate(api, str(baseline.public_id), candidate, max_unknown_rate=0.1).json()
    assert body["passed"] is False and "unknown rate 15.0%" in body["evaluators"][0]["reasons"][0]


def test_latest_is_the_newest_marked_baseline(api, runs):
    baseline, candidate = runs(*pairs(down=25, up=2))
    missing = gate(api, "latest", candidate)
    assert missing.status_code == 400 and "baseline" in missing.json()["error"]["details"]
    marked = api.post(
        f"/api/v1/experiments/{baseline.public_id}/baseline/", {"is_baseline": True}, format="json"
    )
    assert marked.status_code == 200 and marked.json()["is_baseline"] is True
    body = gate(api, "latest", candidate).json()
    assert body["baseline"]["id"] == str(baseline.public_id) and body["passed"] is False


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"alpha": 0.7}, "alpha"),
        ({"max_drop": -1}, "max_drop"),
        ({"max_unknown_rate": 2}, "max_unknown_rate"),
    ],
)
def test_bad_options_are_named(api, runs, options, field):
    baseline, candidate = runs(*pairs(n=40))
    response = gate(api, str(baseline.public_id), candidate, **options)
    assert response.status_code == 400 and field in response.json()["error"]["details"]


def test_a_run_that_is_not_complete_cannot_be_gated(api, runs, workspace, user):
    baseline, candidate = runs(*pairs(n=40))
    draft = services.experiment_clone(experiment=candidate, user=user)
    response = gate(api, str(baseline.public_id), draft)
    assert response.status_code == 400 and "candidate" in response.json()["error"]["details"]


def test_a_signed_in_caller_names_the_workspace_in_the_query(web, runs):
    baseline, candidate = runs(*pairs(down=5, up=4))
    query = {
        "workspace": "acme",
        "baseline": str(baseline.public_id),
        "candidate": str(candidate.public_id),
    }
    response = web.get("/api/v1/experiments/gate/", query)
    assert response.status_code == 200, response.content
    assert response.json()["passed"] is True
