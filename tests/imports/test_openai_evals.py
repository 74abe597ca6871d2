"""The OpenAI Evals importer on a definition and data written from OpenAI's documentation
(tests/fixtures/openai_evals/README.md names the pages): what each grader became, the typed
columns, the experiment of the samples, and the imported evaluators' grades on rows whose
answers are known (string_check: 1 or 0 as the Graders guide defines eq and ilike;
text_similarity: rapidfuzz's ratio, the library OpenAI names for fuzzy_match — its docs state
no numbers for their examples)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rapidfuzz import fuzz

from assay import services as platform
from evalsets.models import EvalSet
from evaluators.models import Evaluator
from evaluators.services import evaluator_debug
from experiments.models import Experiment
from imports.kinds import ImportProblem
from imports.services import import_run

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_evals"
DEFINITION = (FIXTURES / "definition.json").read_bytes()
DATA = (FIXTURES / "data.jsonl").read_bytes()
ROWS = [json.loads(line) for line in DATA.decode().splitlines()]

pytestmark = pytest.mark.django_db


def _import(workspace, user, definition=DEFINITION, data=DATA):
    files = {"definition": definition, "data": data}
    return import_run(workspace=workspace, user=user, kind="openai-evals", files=files)


def _turn(row: dict) -> dict:
    item = row["item"]
    dataset = {k: v if isinstance(v, str) else json.dumps(v) for k, v in item.items()}
    dataset |= {"openai_item": json.dumps(item), "meta_priority": item["meta"]["priority"]}
    return {**dataset, "actual_output": row["sample"]["output_text"]}


def _grades(workspace, name: str) -> list[tuple[float | None, str]]:
    evaluator = Evaluator.objects.get(
        workspace=workspace, name=f"IT Ticket Categorization · {name}"
    )
    outcomes = evaluator_debug(evaluator=evaluator, turns=[_turn(r) for r in ROWS], version="1.0.0")
    return [(o.score, o.verdict) for o in outcomes]


@pytest.fixture
def provider(workspace):
    return platform.provider_create(
        workspace=workspace,
        name="Judge host",
        base_url="https://llm.test/v1",
        default_model="judge-1",
        api_key="sk-test-000000000000",
    )


def test_every_grader_gets_a_line_and_the_samples_an_experiment(workspace, user, provider):
    run, new = _import(workspace, user)
    lines = run.report["lines"]
    assert new and len(lines) == 13  # item schema, 9 graders (+2 multi parts), the samples
    sources = [line["source"] for line in lines]
    assert sources[0] == "data_source_config.item_schema" and sources[-1] == "sample"
    indices = [int(s.split("[")[1].split("]")[0]) for s in sources[1:-1]]
    assert indices == sorted(indices)  # in the definition's order
    became = {line["source"]: line["became"] or line["problem"] for line in lines}
    assert (
        "metric exact_match"
        in became["testing_criteria[0] string_check “Match output to human label”"]
    )
    assert (
        "metric ilike" in became["testing_criteria[1] string_check “Mentions the label, any case”"]
    )
    assert (
        "metric fuzzy_match" in became["testing_criteria[2] text_similarity “Close to the label”"]
    )
    judge = became["testing_criteria[5] score_model “Label quality”"]
    assert "range 1–10 scaled to 0–1, pass at 0.666667" in judge
    assert "no Assay counterpart" in became["testing_criteria[8] endpoint “Calls our service”"]
    assert "3 outputs" in became["sample"]
    evalset = EvalSet.objects.get(workspace=workspace)
    columns = {c["name"]: c["description"] for c in evalset.columns}
    assert columns["ticket_text"] == "item.ticket_text (JSON type: string)"
    assert "item.meta.priority" in columns["item_meta_priority"]
    experiment = Experiment.objects.get(workspace=workspace)
    assert experiment.target_kind == "external" and experiment.bindings.count() == 10
    assert str(experiment.public_id) in run.report["created"]["experiment"]


def test_templates_become_variables_with_their_mapping(workspace, user, provider):
    _import(workspace, user)
    judge = Evaluator.objects.get(workspace=workspace, name__endswith="Label quality")
    config = judge.versions.get().config
    assert config["messages"][1]["content"] == (
        "Ticket: {{ticket_text}}\nPriority: {{item_meta_priority}}\nLabel: {{actual_output}}"
    )
    assert [m["role"] for m in config["messages"]] == ["system", "user"]
    assert config["messages"][0]["content"].startswith(
        "Rate how well the label fits the ticket.\n\nGrade from 1 to 10."
    )
    assert (config["model"]["provider_id"], config["model"]["model"]) == (
        str(provider.public_id),
        "o4-mini",
    )
    binding = Experiment.objects.get(workspace=workspace).bindings.get(
        evaluator_version__evaluator=judge
    )
    assert binding.mapping == {
        "ticket_text": "column:ticket_text",
        "item_meta_priority": "column:item_meta_priority",
        "actual_output": "target:actual_output",
    }


def test_string_checks_grade_as_openai_defines_them(workspace, user):
    _import(workspace, user)
    assert _grades(workspace, "Match output to human label") == [
        (1.0, "pass"),
        (0.0, "fail"),
        (0.0, "fail"),
    ]
    assert _grades(workspace, "Mentions the label, any case") == [
        (1.0, "pass"),
        (1.0, "pass"),
        (0.0, "fail"),
    ]


def test_text_similarity_grades_with_its_library_and_threshold(workspace, user):
    _import(workspace, user)
    expected = [
        fuzz.ratio(r["sample"]["output_text"], r["item"]["correct_label"]) / 100 for r in ROWS
    ]
    grades = _grades(workspace, "Close to the label")
    assert [score for score, _ in grades] == pytest.approx(expected)
    assert [verdict for _, verdict in grades] == ["pass" if s >= 0.8 else "fail" for s in expected]
    assert grades[1] == (pytest.approx(0.875), "pass")  # one letter's case: 14 of 16 kept


def test_python_and_multi_graders_run_their_source_in_the_sandbox(workspace, user):
    _import(workspace, user)
    assert _grades(workspace, "Starts with the label") == [
        (1.0, "pass"),
        (1.0, "pass"),
        (0.0, "fail"),
    ]
    scores = [score for score, _ in _grades(workspace, "Exact and starts")]
    assert scores == [1.0, 0.5, 0.0]


def test_without_a_provider_judges_stay_drafts_and_run_without_them(workspace, user):
    run, _ = _import(workspace, user)
    lines = {line["source"]: line["became"] for line in run.report["lines"]}
    assert (
        "a draft: no model provider"
        in lines["testing_criteria[4] label_model “Sentiment of the ticket”"]
    )
    assert Experiment.objects.get(workspace=workspace).bindings.count() == 8


@pytest.mark.parametrize(
    ("definition", "data", "message"),
    [
        (b"{", DATA, "definition: not JSON"),
        (b'{"testing_criteria": []}', DATA, "definition, data_source_config: missing"),
        (DEFINITION, b'{"item": {}}\n[1]', "data, line 2: a row is"),
        (DEFINITION, b"", "data: this file is required"),
    ],
)
def test_bad_files_are_named_and_keep_nothing(workspace, user, definition, data, message):
    with pytest.raises(ImportProblem, match=message):
        _import(workspace, user, definition, data)
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    assert not Evaluator.objects.filter(workspace=workspace).exists()


def test_without_samples_there_is_no_experiment(workspace, user):
    data = b"\n".join(json.dumps({"item": r["item"]}).encode() for r in ROWS)
    run, _ = _import(workspace, user, data=data)
    assert "experiment" not in run.report["created"] and not Experiment.objects.exists()
    assert Evaluator.objects.filter(workspace=workspace).count() == 10


COSINE = {
    "name": "Cosine",
    "data_source_config": {"type": "custom", "item_schema": {"properties": {"a": {}}}},
    "testing_criteria": [
        {
            "type": "text_similarity",
            "name": "Near",
            "input": "{{sample.output_text}}",
            "reference": "{{item.a}}",
            "evaluation_metric": "cosine",
            "pass_threshold": 0.9,
        }
    ],
}


def test_cosine_uses_the_workspaces_provider_or_stays_a_draft(workspace, user, provider):
    definition = json.dumps(COSINE).encode()
    data = b'{"item": {"a": "x"}, "sample": {"output_text": "x"}}'
    run, _ = _import(workspace, user, definition, data)
    config = Evaluator.objects.get(workspace=workspace, name="Cosine · Near").versions.get().config
    assert config["metric"] == "embedding_cosine"
    assert config["options"] == {
        "provider_id": str(provider.public_id),
        "model": "text-embedding-3-small",
    }
    with pytest.raises(ImportProblem, match="options, provider_id: no such provider"):
        import_run(
            workspace=workspace,
            user=user,
            kind="openai-evals",
            files={"definition": definition, "data": data},
            options={"provider_id": "nope"},
        )


def test_cosine_without_a_provider_is_a_draft_and_no_experiment(workspace, user):
    data = b'{"item": {"a": "x"}, "sample": {"output_text": "x"}}'
    run, _ = _import(workspace, user, json.dumps(COSINE).encode(), data)
    lines = {line["source"]: line["became"] or line["problem"] for line in run.report["lines"]}
    assert "a draft: no model provider" in lines["testing_criteria[0] text_similarity “Near”"]
    assert lines["sample"] == "no evaluator could run, so no experiment was made"
    assert not Evaluator.objects.get(workspace=workspace).versions.exists()
