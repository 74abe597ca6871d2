"""Imported LLM judges run against a model: the scripted local server answers as the model
would to the judge's prompt, and the test checks what the judge sent (the row's templated
values, as the source grader's template puts them) and the verdict (as the source tool maps
the model's answer). Each importer's fixtures name their documentation:
tests/fixtures/openai_evals/README.md (label_model, score_model),
tests/imports/promptfoo/judged.yaml (llm-rubric, factuality, model-graded-closedqa),
tests/fixtures/openai_evals_registry/README.md (fact, closedqa).

The judges are run by the evaluator debug service on version 1.0.0, each turn built from an
imported row through the variables' mapping, one turn a call so the queued answer is its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay import services as platform
from evalsets.models import EvalSetVersion
from evaluators.models import Evaluator
from evaluators.services import evaluator_debug
from experiments.models import Experiment
from imports.services import import_run
from tests.support.llm_fixtures import TEST_API_KEY, llm_server, llm_server_factory  # noqa: F401

FIXTURES = Path(__file__).parent.parent / "fixtures"
PROMPTFOO = Path(__file__).parent / "promptfoo"

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(workspace, llm_server):  # noqa: F811
    return platform.provider_create(
        workspace=workspace,
        name="Scripted judge host",
        base_url=llm_server.base_url,
        default_model="judge-model",
        api_key=TEST_API_KEY,
        structured_mode="json_object",
    )


def _rows(workspace) -> list[dict]:
    version = EvalSetVersion.objects.get(evalset__workspace=workspace)
    return [item.data for item in version.items.order_by("position")]


def _turn(row: dict, mapping: dict, output: str) -> dict:
    """The turn an experiment gives the judge: each variable from its column, the output."""
    turn = {"actual_output": output}
    for name, source in mapping.items():
        kind, _colon, column = source.partition(":")
        if kind == "column" and column in row:
            turn[name] = row[column]
    return turn


def _judge(server, evaluator, turn: dict, answer: dict):
    """The judge's outcome on one turn when the model answers `answer`, and the messages the
    model was sent."""
    server.reset()
    server.enqueue("raw:" + json.dumps(answer))
    [outcome] = evaluator_debug(evaluator=evaluator, turns=[turn], version="1.0.0")
    [request] = server.chat_requests()
    return outcome, request.body["messages"]


def _text(messages: list[dict]) -> str:
    return "\n".join(m["content"] for m in messages)


def _asks_only_reason_and_score(messages: list[dict]) -> None:
    """The judge's answer is {"reason", "score"} (a strict JSON schema in the json_schema mode
    refuses other keys): the prompt asks for no other key."""
    text = _text(messages)
    assert '"label"' not in text and '"grade"' not in text
    assert '"reason"' in text and '"score"' in text


# --------------------------------------------------------------------------- OpenAI Evals


def _openai_import(workspace, user):
    files = {
        "definition": (FIXTURES / "openai_evals" / "definition.json").read_bytes(),
        "data": (FIXTURES / "openai_evals" / "data.jsonl").read_bytes(),
    }
    import_run(workspace=workspace, user=user, kind="openai-evals", files=files)
    experiment = Experiment.objects.get(workspace=workspace)
    return {
        b.evaluator_version.evaluator.name.split(" · ", 1)[1]: (b.evaluator_version.evaluator, b)
        for b in experiment.bindings.select_related("evaluator_version__evaluator")
    }


def test_label_model_passes_on_a_passing_label(workspace, user, provider, llm_server):  # noqa: F811
    evaluator, binding = _openai_import(workspace, user)["Sentiment of the ticket"]
    monitor, _vim, restaurants = _rows(workspace)
    positive, sent = _judge(
        llm_server,
        evaluator,
        _turn(monitor, binding.mapping, "Hardware"),
        {"reason": "positive: a polite request.", "score": 1},
    )
    # the grader's messages as its template says: developer → system, the item and the sample
    assert [m["role"] for m in sent] == ["system", "user"]  # no system message after the user's
    assert sent[0]["content"].startswith("Classify the sentiment of the ticket")
    assert sent[1]["content"] == "Ticket: My monitor won't turn on - help!\nAnswer: Hardware"
    assert '["positive", "neutral", "negative"]' in sent[0]["content"]
    _asks_only_reason_and_score(sent)
    assert (positive.score, positive.verdict) == (1.0, "pass")
    negative, sent = _judge(
        llm_server,
        evaluator,
        _turn(restaurants, binding.mapping, "Hardware"),
        {"reason": "negative: off topic.", "score": 0},
    )
    assert "Ticket: Best restaurants in Cleveland?\nAnswer: Hardware" in _text(sent)
    assert (negative.score, negative.verdict) == (0.0, "fail")


def test_score_model_passes_at_its_threshold_after_scaling(workspace, user, provider, llm_server):  # noqa: F811
    evaluator, binding = _openai_import(workspace, user)["Label quality"]
    monitor, vim, _restaurants = _rows(workspace)
    # range 1–10, pass_threshold 7: 8 → (8 − 1) / 9 passes, 5 → 4 / 9 fails
    assert binding.policy["threshold"] == pytest.approx(6 / 9)
    good, sent = _judge(
        llm_server,
        evaluator,
        _turn(monitor, binding.mapping, "Hardware"),
        {"reason": "8: fits.", "score": round(7 / 9, 4)},
    )
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[1]["content"] == (
        "Ticket: My monitor won't turn on - help!\nPriority: high\nLabel: Hardware"
    )
    assert "Grade from 1 to 10" in sent[0]["content"]
    _asks_only_reason_and_score(sent)
    assert (good.score, good.verdict) == (round(7 / 9, 4), "pass")
    poor, sent = _judge(
        llm_server,
        evaluator,
        _turn(vim, binding.mapping, "software"),
        {"reason": "5: lower case.", "score": round(4 / 9, 4)},
    )
    assert "Priority: low\nLabel: software" in _text(sent)
    assert poor.verdict == "fail"
    at_threshold, _sent = _judge(
        llm_server,
        evaluator,
        _turn(vim, binding.mapping, "Software"),
        {"reason": "7: fits.", "score": round(6 / 9, 4)},
    )
    assert at_threshold.verdict == "pass"  # OpenAI passes a score equal to pass_threshold


# a grader whose message content is a list of text parts, as the Evals API reference's EvalItem
# allows (input_text and output_text parts); no range: the documented default [0, 1]
PARTS_DEFINITION = {
    "name": "Parts",
    "data_source_config": {
        "type": "custom",
        "item_schema": {"type": "object", "properties": {"question": {"type": "string"}}},
    },
    "testing_criteria": [
        {
            "type": "score_model",
            "name": "Helpful",
            "model": "gpt-4.1",
            "input": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "Question: {{item.question}}"},
                        {"type": "output_text", "text": "Answer: {{sample.output_text}}"},
                    ],
                }
            ],
            "pass_threshold": 0.6,
        }
    ],
}


def test_a_message_of_text_parts_is_judged_with_every_part(workspace, user, provider, llm_server):  # noqa: F811
    files = {
        "definition": json.dumps(PARTS_DEFINITION).encode(),
        "data": b'{"item": {"question": "Is water wet?"}, "sample": {"output_text": "Yes."}}\n',
    }
    import_run(workspace=workspace, user=user, kind="openai-evals", files=files)
    binding = Experiment.objects.get(workspace=workspace).bindings.get()
    evaluator = binding.evaluator_version.evaluator
    [row] = _rows(workspace)
    assert binding.policy["threshold"] == 0.6  # range [0, 1]: the threshold as written
    outcome, sent = _judge(
        llm_server, evaluator, _turn(row, binding.mapping, "Yes."), {"reason": "0.6", "score": 0.6}
    )
    assert [m["role"] for m in sent] == ["system", "user"]
    assert sent[1]["content"] == "Question: Is water wet?\nAnswer: Yes."
    assert "Grade from 0 to 1" in sent[0]["content"]
    assert outcome.verdict == "pass"


# --------------------------------------------------------------------------- promptfoo


def _promptfoo_import(workspace, user) -> dict:
    files = {
        "config": (PROMPTFOO / "judged.yaml").read_bytes(),
        "tests": (PROMPTFOO / "tests.csv").read_bytes(),
    }
    import_run(workspace=workspace, user=user, kind="promptfoo", files=files)
    experiment = Experiment.objects.get(workspace=workspace)
    return {
        b.evaluator_version.evaluator.name.removeprefix("promptfoo: "): (
            b.evaluator_version.evaluator,
            b,
        )
        for b in experiment.bindings.select_related("evaluator_version__evaluator")
    }


@pytest.mark.parametrize(
    ("assertion", "row", "output", "value", "answers"),
    [
        # promptfoo's llm-rubric: the grader's {pass, score, reason}; our judge asks for a score
        ("llm-rubric", 0, "Paris", "Names a city", [(1, "pass"), (0, "fail")]),
        # factuality: choices A, B, C and E pass, D (a disagreement) fails
        ("factuality", 0, "Paris", "Paris is the capital of France", [(1, "pass"), (0, "fail")]),
        # model-graded-closedqa: Y passes, N fails
        ("model-graded-closedqa", 1, "Eight.", "gives a number", [(1, "pass"), (0, "fail")]),
    ],
)
def test_promptfoo_judges_send_the_row_and_map_the_answer(
    workspace,
    user,
    provider,
    llm_server,  # noqa: F811
    assertion,
    row,
    output,
    value,
    answers,
):
    evaluator, binding = _promptfoo_import(workspace, user)[assertion]
    data = _rows(workspace)[row]
    question = data["question"]["text"]
    for score, verdict in answers:
        outcome, sent = _judge(
            llm_server,
            evaluator,
            _turn(data, binding.mapping, output),
            {"reason": "Judged.", "score": score},
        )
        user_message = next(m for m in sent if m["role"] == "user")["content"]
        assert f"Answer: {question}" in user_message  # the prompt with the test's vars
        assert value in user_message and output in user_message
        assert (outcome.score, outcome.verdict) == (float(score), verdict)


# --------------------------------------------------------------------------- registry


def _registry_import(workspace, user) -> dict:
    registry = FIXTURES / "openai_evals_registry"
    files = {
        "spec": (registry / "capitals.yaml").read_bytes(),
        "samples": (registry / "capitals_samples.jsonl").read_bytes(),
    }
    import_run(
        workspace=workspace,
        user=user,
        kind="openai-evals-registry",
        files=files,
        options={"eval": "capitals-fact"},
    )
    return {e.name: e for e in Evaluator.objects.filter(workspace=workspace, kind="llm")}


def _identity(evaluator) -> dict:
    variables = evaluator.latest_version.config["input_variables"]
    return {v["name"]: f"column:{v['name']}" for v in variables}


@pytest.mark.parametrize(
    ("name", "output", "answers", "expected"),
    [
        # fact: A, B, C and E pass, D (the answer disagrees with the expert) fails
        (
            "capitals-fact.dev.v0 · fact",
            "Paris",
            [("C: the same details.", 1), ("D: a disagreement.", 0)],
            ["pass", "fail"],
        ),
        # closedqa's choice_scores: Y 1.0, N 0.0
        (
            "capitals-closedqa-concise.dev.v0 · closedqa",
            "Paris is the capital.",
            [("One short sentence. Y", 1), ("Too long. N", 0)],
            ["pass", "fail"],
        ),
    ],
)
def test_registry_judges_send_the_sample_and_map_the_choice(
    workspace,
    user,
    provider,
    llm_server,  # noqa: F811
    name,
    output,
    answers,
    expected,
):
    evaluator = _registry_import(workspace, user)[name]
    france = _rows(workspace)[0]
    verdicts = []
    for reason, score in answers:
        outcome, sent = _judge(
            llm_server,
            evaluator,
            _turn(france, _identity(evaluator), output),
            {"reason": reason, "score": score},
        )
        user_message = next(m for m in sent if m["role"] == "user")["content"]
        assert "What is the capital of France?" in user_message
        assert f"<answer>\n{output}\n</answer>" in user_message
        if name.endswith("fact"):
            assert "<expert_answer>\nParis\n</expert_answer>" in user_message
        else:
            assert "Is the answer a single short sentence?" in _text(sent)
        verdicts.append(outcome.verdict)
    assert verdicts == expected
