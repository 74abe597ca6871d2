"""Builders for pairwise tests: a pairwise judge on a scripted provider, finished experiments
whose target outputs a client pushed, and the markers that steer the scripted judge.

Fixtures (a plugin of tests/conftest.py): `pw_provider` (the pairwise judge's host, the
`llm_server`), `pw_judge` (a submitted pairwise judge), `pw_scorer` (what the experiments were
scored with, on a server of its own), `pw_version` (an evalset version of N rows) and
`pw_apps(*labels)` (completed experiments X, Y, Z whose outputs steer the judge, see GOOD).

The scripted server answers the first `[[script:…]]` marker in the judge's user message. A
marker inside an output moves with it, so in each order the output shown first decides:

- both outputs carry `verdict:A`: the judge always picks the first slot (position-inconsistent,
  leaning first);
- the output that should win carries `verdict:A` and the other `verdict:B`: the winner is
  picked in both orders (consistent).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from assay import services as platform
from evaluators import services as evaluator_services
from evaluators.turns import OUTPUT_NAMES
from experiments import scoring as engine
from experiments import services
from experiments.pairwise import work as pairwise_work
from tests.support.factories import make_evalset_version, make_llm_version

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
    """Output-like variables read the pushed output, the others the same-named column."""
    names = [v["name"] for v in evaluator_version.config["input_variables"]]
    return {
        name: "target:actual_output" if name in OUTPUT_NAMES else f"column:{name}" for name in names
    }


def _output(item, text_or_none) -> dict:
    if text_or_none is None:
        return {"item_id": str(item.item_id), "error": "the app crashed"}
    return {"item_id": str(item.item_id), "actual_output": text_or_none}


def steered(label: str, good) -> Callable:
    """An app whose output on row i carries FIRST when `good(i)` and SECOND otherwise: against
    each other, the output with FIRST wins in both orders, and two outputs with the same marker
    make the judge pick a slot (a position-inconsistent tie)."""

    def answer(item) -> str:
        return f"{label} answer {item.position} {FIRST if good(item.position) else SECOND}"

    return answer


def expected_outcome(good_a: bool, good_b: bool) -> tuple[str, bool]:
    """What the scripted judge decides for a pair whose outputs are good or not."""
    if good_a == good_b:
        return "tie", True
    return ("A", False) if good_a else ("B", False)


# --- fixtures (a plugin of tests/conftest.py) -----------------------------------------------

N = 12


@pytest.fixture
def pw_provider(workspace, llm_server):
    return platform.provider_create(
        workspace=workspace,
        name="Local",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key="sk-test-assay-0123456789",
        structured_mode="json_schema",
        max_retries=1,
    )


@pytest.fixture
def pw_judge(workspace, user, pw_provider):
    return make_pairwise_version(workspace=workspace, user=user, provider=pw_provider)


@pytest.fixture
def pw_scorer(workspace, user, llm_server_factory):
    """What the experiments themselves were scored with: a judge on a server of its own, so the
    pairwise judge's requests are the only ones `llm_server` sees."""
    own = llm_server_factory()
    host = platform.provider_create(
        workspace=workspace, name="Scorer host", base_url=own.base_url, default_model="m"
    )
    return make_llm_version(workspace=workspace, user=user, provider=host, name="Scorer")


@pytest.fixture
def pw_version(workspace, user):
    return qa_version(workspace=workspace, user=user, n=N)


# Which rows each app answers well: Z on most, Y on some, X on few.
GOOD = {"X": lambda i: i % 4 == 0, "Y": lambda i: i % 2 == 0, "Z": lambda i: i % 4 != 3}


@pytest.fixture
def pw_apps(workspace, user, pw_version, pw_scorer):
    def make(*labels, on=None):
        return [
            pushed_run(
                workspace=workspace,
                user=user,
                version=on or pw_version,
                evaluator_version=pw_scorer,
                name=f"app {label}",
                answer=steered(label, GOOD[label]),
            )
            for label in labels
        ]

    return make


@pytest.fixture
def pw_finished(workspace, user, pw_apps, pw_judge):
    """`make(*labels)`: a completed pairwise run of apps X, Y, Z… (in that order), judged
    inline by the pairwise judge on the scripted server."""
    from experiments.pairwise.services import pairwise_run_create

    def make(*labels, name: str = "pairwise", **options):
        run = pairwise_run_create(
            workspace=workspace,
            user=user,
            name=name,
            experiments=pw_apps(*labels),
            evaluator_version=pw_judge,
            chunk_size=options.pop("chunk_size", 10),
            **options,
        )
        return pairwise_work.pairwise_run_inline(run_id=run.pk)

    return make
