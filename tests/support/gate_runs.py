"""Completed baseline and candidate runs built from verdict lists, for the CI gate's tests
(the API's and the `assay gate` command's): a code evaluator "Reader" returns the verdict a
column holds, so each row's pass, fail or unknown is chosen by the test."""

from __future__ import annotations

import random

from evaluators import services as evaluator_services
from experiments import scoring as engine
from experiments import services
from tests.support.factories import make_code_version, make_evalset_version

READ_VERDICT = """def exec_evaluation(turn):
    v = turn["evaluate_dataset_fields"]["v"]["text"]
    if v == "unknown":
        return EvalOutput(score=None, reason="cannot tell")
    return EvalOutput(score=1.0 if v == "pass" else 0.0, reason=v)
"""
COLUMNS = [
    {"name": n, "content_type": "Text", "required": True, "description": ""}
    for n in ("base", "cand")
]


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


def verdict_reader(*, workspace, user):
    """Reader@2.0.0: one input variable `v`, whose text is the verdict."""
    reader = make_code_version(workspace=workspace, user=user, name="Reader", source=READ_VERDICT)
    variables = {**reader.config["input_variables"][0], "name": "v"}
    evaluator = reader.evaluator
    config = {**evaluator.draft_config, "input_variables": [variables]}
    evaluator_services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)
    return evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="2.0.0"
    )


def verdict_runs(*, workspace, user):
    """A function (base, cand, name) -> [baseline, candidate]: both completed, inline."""
    reader = verdict_reader(workspace=workspace, user=user)

    def build(base, cand, name="run"):
        rows = [{"base": b, "cand": c} for b, c in zip(base, cand, strict=True)]
        version = make_evalset_version(
            workspace=workspace, user=user, rows=rows, columns=COLUMNS, name=name
        )
        return [_run(workspace, user, version, reader, name, side) for side in ("base", "cand")]

    return build


def _run(workspace, user, version, reader, name, side):
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=f"{name} {side}",
        evalset_version=version,
        bindings=[{"evaluator_version": reader, "mapping": {"v": f"column:{side}"}}],
        launch=True,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)
