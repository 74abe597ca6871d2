"""Builders for pairwise tests: a pairwise judge on a scripted provider, finished experiments
whose target outputs a client pushed, and the markers that steer the scripted judge.

The scripted server answers the first `[[script:…]]` marker in the judge's user message. A
marker inside an output moves with it, so in each order the output shown first decides:

- both outputs carry `verdict:A`: the judge always picks the first slot (position-inconsistent,
  leaning first);
- the output that should win carries `verdict:A` and the other `verdict:B`: the winner is
  picked in both orders (consistent).
"""

from __future__ import annotations

from evaluators import services as evaluator_services
from experiments import engine, services
from tests.support.factories import make_evalset_version

FIRST, SECOND = "[[script:verdict:A]]", "[[script:verdict:B]]"
COLUMNS = [
    {"name": "input", "content_type": "Text", "required": True, "description": ""},
    {"name": "reference_output", "content_type": "Text", "required": False, "description": ""},
]


def text(value: str) -> dict:
    return {"content_type": "Text", "text": value}


def pair_turn(question: str, output_a: str, output_b: str) -> dict:
    """A debug turn for a pairwise judge."""
    return {
        "evaluate_dataset_fields": {"input": text(question)},
        "evaluate_target_output_fields": {"output_a": text(output_a), "output_b": text(output_b)},
        "ext": {},
    }


def make_pairwise_evaluator(*, workspace, user, provider, name: str = "Which is better"):
    """A pairwise judge (draft) on `provider`'s default model."""
    judge = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name=name, kind="pairwise"
    )
    model = {
        **judge.draft_config["model"],
        "provider_id": str(provider.public_id),
        "model": provider.default_model,
    }
    config = {**judge.draft_config, "model": model}
    return evaluator_services.evaluator_update_draft(evaluator=judge, user=user, config=config)


def make_pairwise_version(*, workspace, user, provider, name: str = "Which is better"):
    """A submitted pairwise judge version 1.0.0 on `provider`."""
    judge = make_pairwise_evaluator(workspace=workspace, user=user, provider=provider, name=name)
    return evaluator_services.evaluator_submit_version(evaluator=judge, user=user, version="1.0.0")


def qa_version(*, workspace, user, n: int, name: str = "Pairs", version: str = "1.0.0"):
    """An evalset version of `n` questions."""
    rows = [{"input": f"question {i}", "reference_output": f"answer {i}"} for i in range(n)]
    return make_evalset_version(
        workspace=workspace, user=user, rows=rows, name=name, columns=COLUMNS, version=version
    )


def pushed_run(*, workspace, user, version, evaluator_version, name: str, answer) -> object:
    """A completed experiment on `version` whose outputs a client pushed: `answer(item)` is the
    output text of each row (None: the row gets an error instead of an output)."""
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name=name,
        evalset_version=version,
        bindings=[{"evaluator_version": evaluator_version, "mapping": _mapping(evaluator_version)}],
        target={"kind": "external"},
        chunk_size=50,
        launch=True,
    )
    engine.experiment_begin(experiment_id=experiment.pk)
    outputs = [_output(item, answer(item)) for item in version.items.order_by("position")]
    services.outputs_push(experiment=experiment, outputs=outputs)
    services.experiment_close(experiment=experiment)
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def _mapping(evaluator_version) -> dict:
    names = [v["name"] for v in evaluator_version.config["input_variables"]]
    return {
        name: "target:actual_output" if name == "actual_output" else f"column:{name}"
        for name in names
    }


def _output(item, text_or_none) -> dict:
    if text_or_none is None:
        return {"item_id": str(item.item_id), "error": "the app crashed"}
    return {"item_id": str(item.item_id), "actual_output": text_or_none}
