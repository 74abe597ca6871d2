"""The debug panel and API take a flat turn, `{"input": "…", "actual_output": "…"}`, as well
as the nested shape (issue 28), with the real sandbox."""

import json

import pytest

from evaluators import services
from evaluators.turns import turn_from_flat

pytestmark = pytest.mark.django_db

CODE = """def exec_evaluation(turn):
    output = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    reference = turn["evaluate_dataset_fields"]["reference_output"]["text"]
    return EvalOutput(score=1.0 if output == reference else 0.0, reason="compared " + output)
"""
FLAT = [
    {"actual_output": "Paris", "reference_output": "Paris"},
    {"actual_output": "Lyon", "reference_output": {"content_type": "Text", "text": "Paris"}},
]


@pytest.fixture
def code_eval(workspace, user):
    evaluator = services.evaluator_create(
        workspace=workspace, user=user, name="Capital", kind="code", language="python"
    )
    config = {**evaluator.draft_config, "source": CODE}
    return services.evaluator_update_draft(evaluator=evaluator, user=user, config=config)


def test_a_flat_turn_is_nested_like_a_typed_one():
    nested = turn_from_flat({"input": "Q?", "actual_output": "A", "ext": {"k": "v"}})
    assert nested == {
        "evaluate_dataset_fields": {"input": {"content_type": "Text", "text": "Q?"}},
        "evaluate_target_output_fields": {"actual_output": {"content_type": "Text", "text": "A"}},
        "ext": {"k": "v"},
    }
    typed = {"evaluate_dataset_fields": {}, "nonsense": 1}
    assert turn_from_flat(typed) is typed and turn_from_flat("x") == "x"


def test_the_api_runs_flat_turns(api, code_eval):
    response = api.post(
        f"/api/v1/evaluators/{code_eval.public_id}/debug/", {"turns": FLAT}, format="json"
    )
    assert response.status_code == 200, response.content
    first, second = response.json()["results"]
    assert (first["score"], first["verdict"]) == (1.0, "pass")
    assert (second["score"], second["verdict"]) == (0.0, "fail")


def test_the_panel_runs_flat_turns(web, code_eval):
    response = web.post(
        f"/w/acme/evaluators/{code_eval.public_id}/debug/",
        {"turns": json.dumps(FLAT), "config": json.dumps(code_eval.draft_config)},
    )
    html = response.content.decode()
    assert response.status_code == 200 and "compared Paris" in html and "compared Lyon" in html
    assert "Unknown field" not in html


def test_a_flat_turn_missing_a_variable_says_which(api, code_eval):
    response = api.post(
        f"/api/v1/evaluators/{code_eval.public_id}/debug/",
        {"turns": [{"actual_output": "Paris"}]},
        format="json",
    )
    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert details == {"turns[0]": ["Required variable 'reference_output' is missing."]}
