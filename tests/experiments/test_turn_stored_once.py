"""The turn an evaluator receives is stored once — the row in its evalset version, the
target's output once per (experiment, item, repetition), the mapping on the binding — not
copied into each binding's result; the result pages, the API and the exports rebuild it, and
what they show is exactly what the evaluator was given."""

import json

import pytest
from django.db import connection

from experiments import scoring as engine
from experiments import services
from experiments.models import Result, TargetResult
from experiments.results import exports
from experiments.scoring.turns import result_turn, result_turns
from tests.support.app_server import ScriptedApp
from tests.support.factories import ECHO_TURN, make_code_version, make_evalset_version

pytestmark = pytest.mark.django_db

COLUMNS = [
    {"name": name, "content_type": "Text", "required": False, "description": ""}
    for name in ("question", "reply", "reference_output", "context")
]
ROWS = [
    {"question": f"q{i}", "reply": f"answer {i}", "reference_output": f"ref {i}", "context": "c"}
    for i in range(6)
]


@pytest.fixture
def app():
    with ScriptedApp() as server:
        yield server


@pytest.fixture
def finished(workspace, user, app):
    version = make_evalset_version(workspace=workspace, user=user, rows=ROWS, columns=COLUMNS)
    echo = make_code_version(workspace=workspace, user=user, name="Echo", source=ECHO_TURN)
    echo_too = make_code_version(workspace=workspace, user=user, name="Echo too", source=ECHO_TURN)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="echo",
        evalset_version=version,
        bindings=[
            {
                "evaluator_version": echo,
                "mapping": {
                    "actual_output": "target:actual_output",
                    "reference_output": "column:reference_output",
                },
            },
            {
                "evaluator_version": echo_too,
                "mapping": {
                    "actual_output": "column:context",
                    "reference_output": "column:question",
                },
            },
        ],
        target={
            "kind": "http",
            "url": app.url,
            "body": {"question": "{{question}}", "reply": "{{reply}}"},
            "output": "answer",
        },
        repetitions=2,
        launch=True,
    )
    return engine.experiment_run_inline(experiment_id=experiment.pk)


def received(result: Result) -> dict:
    """What the evaluator said it was given."""
    return json.loads(result.reason)


def test_no_result_holds_a_copy_of_the_turn(finished):
    columns = {
        c.name for c in connection.introspection.get_table_description(
            connection.cursor(), Result._meta.db_table
        )
    }  # fmt: skip
    assert "input" not in columns and "input" not in {f.name for f in Result._meta.fields}
    # the target's output is kept once per (item, repetition), however many evaluators read it
    assert TargetResult.objects.filter(experiment=finished).count() == 6 * 2
    assert Result.objects.filter(experiment=finished).count() == 6 * 2 * 2


def test_the_rebuilt_turn_is_the_one_each_evaluator_received(finished):
    results = list(Result.objects.filter(experiment=finished).select_related("item"))
    assert {r.status for r in results} == {"success"}
    turns = result_turns(results=results)
    for result in results:
        assert turns[result.pk] == received(result)
    first = next(r for r in results if r.binding.mapping["actual_output"].startswith("target"))
    question = first.item.data["question"]["text"]
    target = received(first)["evaluate_target_output_fields"]
    assert target["actual_output"]["text"] == f"answer {question[1:]}"
    other = next(r for r in results if r.binding_id != first.binding_id)
    assert received(other)["evaluate_target_output_fields"]["actual_output"]["text"] == "c"


def test_the_api_and_the_exports_read_it_back(finished, api):
    result = Result.objects.filter(experiment=finished).order_by("position", "binding_id").last()
    body = api.get(f"/api/v1/experiments/{finished.public_id}/results/{result.pk}/").json()
    assert body["input"] == received(result) == result_turn(result=result)
    lines = "".join(exports.export_stream(finished, "jsonl")).splitlines()
    rows = [json.loads(line) for line in lines]
    assert len(rows) == 24
    by_reason = {row["reason"]: row["input"] for row in rows}
    assert all(json.loads(reason) == given for reason, given in by_reason.items())
