"""The openai/evals registry importer on a spec and samples written in the registry's format
(tests/fixtures/openai_evals_registry/README.md): the evalset's columns, what each eval
became, and the imported evaluators' grades on rows whose answers are known — Match as
openai/evals' record_and_check_match (the sampled text starts with an ideal), Includes as its
Includes (an ideal occurs in the text; ignore_case lower-cases both), FuzzyMatch as its
utils.fuzzy_match (lower case, no punctuation, no articles, single spaces; either contains the
other). Bad files are named by place and keep nothing; the same files import once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assay import services as platform
from evalsets.models import EvalSet, EvalSetItem, EvalSetVersion
from evaluators.models import Evaluator
from evaluators.services import evaluator_debug
from imports.kinds import ImportProblem
from imports.services import import_run

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_evals_registry"
SPEC = (FIXTURES / "capitals.yaml").read_bytes()
SAMPLES = (FIXTURES / "capitals_samples.jsonl").read_bytes()
FRANCE = {"reference_output": "Paris"}
USA = {"reference_output": "Washington, D.C.", "ideals": '["Washington, D.C.", "Washington"]'}

pytestmark = pytest.mark.django_db


def _import(workspace, user, spec=SPEC, samples=SAMPLES, **options):
    files = {"spec": spec, "samples": samples}
    return import_run(
        workspace=workspace, user=user, kind="openai-evals-registry", files=files, options=options
    )


def _grades(workspace, name: str, cases: list[tuple[dict, str]]) -> list[float | None]:
    evaluator = Evaluator.objects.get(workspace=workspace, name=name)
    turns = [{**row, "actual_output": output} for row, output in cases]
    return [o.score for o in evaluator_debug(evaluator=evaluator, turns=turns, version="1.0.0")]


@pytest.fixture
def provider(workspace):
    return platform.provider_create(
        workspace=workspace,
        name="Judge host",
        base_url="https://llm.test/v1",
        default_model="judge-1",
        api_key="sk-test-000000000000",
    )


def test_the_evals_over_one_samples_file_become_a_set_and_evaluators(workspace, user, provider):
    run, created = _import(workspace, user, eval="capitals-match")
    version = EvalSetVersion.objects.get(public_id=run.report["created"]["evalset_version"][0])
    assert created and version.evalset.name == "capitals/samples"
    assert [(c["name"], c["content_type"]) for c in version.columns] == [
        ("input", "Conversation"),
        ("reference_output", "Text"),
        ("ideals", "Text"),
    ]
    second = EvalSetItem.objects.of_version(version).order_by("position")[1].data
    assert second["input"]["messages"][1]["content"] == "What is the capital of the United States?"
    assert json.loads(second["ideals"]["text"]) == ["Washington, D.C.", "Washington"]
    lines = {line["source"]: line["became"] or line["problem"] for line in run.report["lines"]}
    assert lines["capitals-match.dev.v0"].startswith("Python code evaluator (the output starts")
    assert lines["capitals-fuzzy.dev.v0"].startswith("Python code evaluator")
    assert lines["capitals-fact.dev.v0"].startswith("LLM judge (fact)")
    assert lines["capitals-closedqa-concise.dev.v0"].endswith("1.0.0")
    assert "'battle' has no judge here" in lines["capitals-battle.dev.v0"]
    assert "has no Assay evaluator" in lines["capitals-custom.dev.v0"]
    assert lines["capitals-hard-match.dev.v0"].startswith("reads other samples (capitals/hard")
    assert Evaluator.objects.filter(workspace=workspace).count() == 5


def test_match_is_starts_with_any_ideal(workspace, user):
    _import(workspace, user, eval="capitals-match")
    name = "capitals-match.dev.v0 · Match"
    assert _grades(
        workspace,
        name,
        [
            (FRANCE, "Paris is the capital."),
            (FRANCE, " Paris"),  # openai/evals compares the raw text: a leading space fails
            (FRANCE, "The capital is Paris"),
            (USA, "Washington"),  # the second ideal
            (USA, "washington"),  # case counts
        ],
    ) == [1.0, 0.0, 0.0, 1.0, 0.0]


def test_includes_ignoring_case_is_containment_of_any_ideal(workspace, user):
    _import(workspace, user, eval="capitals-includes")
    name = "capitals-includes.dev.v0 · Includes"
    assert _grades(
        workspace,
        name,
        [
            (FRANCE, "the capital is PARIS"),
            (FRANCE, "Lyon"),
            (USA, "It is washington."),
            (USA, "Seattle"),
        ],
    ) == [1.0, 0.0, 1.0, 0.0]


def test_fuzzy_match_is_normalized_containment_either_way(workspace, user):
    _import(workspace, user, eval="capitals-fuzzy")
    name = "capitals-fuzzy.dev.v0 · FuzzyMatch"
    assert _grades(
        workspace,
        name,
        [
            (FRANCE, "The Paris!"),  # "paris" either way
            (FRANCE, "Paris, France"),  # the ideal inside the output
            (FRANCE, "Par"),  # the output inside the ideal counts too
            (FRANCE, "Lyon"),
            (FRANCE, "..."),  # normalizes to nothing: only an empty ideal would match
            (USA, "washington dc"),  # "Washington, D.C." normalized
        ],
    ) == [1.0, 1.0, 1.0, 0.0, 0.0, 1.0]


def test_one_ideal_a_row_uses_the_metric_kind(workspace, user):
    spec = (FIXTURES / "single.yaml").read_bytes()
    samples = (FIXTURES / "single_samples.jsonl").read_bytes()
    run, _ = _import(workspace, user, spec=spec, samples=samples)
    match = Evaluator.objects.get(workspace=workspace, name="arith.dev.v0 · Match")
    includes = Evaluator.objects.get(workspace=workspace, name="arith-includes.dev.v0 · Includes")
    assert (match.kind, match.draft_config["metric"]) == ("metric", "starts_with")
    assert (includes.kind, includes.draft_config["metric"]) == ("metric", "contains")
    row = {"reference_output": "4"}
    outputs = [(row, "4"), (row, "4 apples"), (row, "The answer is 4")]
    assert _grades(workspace, "arith.dev.v0 · Match", outputs) == [1.0, 1.0, 0.0]
    assert _grades(workspace, "arith-includes.dev.v0 · Includes", outputs) == [1.0, 1.0, 1.0]
    assert [c["name"] for c in EvalSet.objects.get(workspace=workspace).columns] == [
        "input",
        "reference_output",
    ]


def test_model_graded_specs_become_judges_with_our_prompts(workspace, user, provider):
    _import(workspace, user, eval="capitals-fact")
    fact = Evaluator.objects.get(workspace=workspace, name="capitals-fact.dev.v0 · fact")
    closedqa = Evaluator.objects.get(
        workspace=workspace, name="capitals-closedqa-concise.dev.v0 · closedqa"
    )
    system, user_message = (m["content"] for m in fact.draft_config["messages"])
    assert "(D) the answer and the expert disagree" in system
    assert "{{reference_output}}" in user_message and "{{actual_output}}" in user_message
    assert fact.draft_config["model"]["provider_id"] == str(provider.public_id)
    assert (
        "conciseness: Is the answer a single short sentence?"
        in (closedqa.draft_config["messages"][0]["content"])
    )
    assert {v["name"]: v["content_type"] for v in closedqa.draft_config["input_variables"]} == {
        "input": "Conversation",
        "actual_output": "Text",
    }
    assert fact.versions.filter(version="1.0.0").exists()


def test_judges_without_a_provider_stay_drafts_and_say_so(workspace, user):
    run, _ = _import(workspace, user, eval="capitals-fact")
    line = next(x for x in run.report["lines"] if x["source"] == "capitals-fact.dev.v0")
    assert "a draft (" in line["became"]
    fact = Evaluator.objects.get(workspace=workspace, name="capitals-fact.dev.v0 · fact")
    assert not fact.versions.exists()


def test_importing_twice_makes_one_set_and_one_of_each_evaluator(workspace, user):
    first, _ = _import(workspace, user, eval="capitals-match")
    again, created = _import(workspace, user, eval="capitals-match")
    assert (created, again.pk) == (False, first.pk)
    assert EvalSet.objects.filter(workspace=workspace).count() == 1
    assert Evaluator.objects.filter(workspace=workspace).count() == 5


@pytest.mark.parametrize(
    ("files", "options", "message"),
    [
        ({"spec": b"a: [b"}, {}, "spec: not a YAML file"),
        ({"spec": b"- 1\n- 2\n"}, {}, "spec: expected a mapping"),
        ({}, {}, "eval: the spec's evals read 2 samples files; choose one of"),
        ({}, {"eval": "nope"}, "eval: no eval 'nope' in the spec"),
        ({"samples": b'{"input": "a", "ideal": "b"}\n{"input": \n'}, {}, "samples, line 2"),
        ({"samples": b'{"input": "a", "ideal": 3}\n'}, {}, r"samples, line 1: 'ideal' is a"),
        ({"samples": b'{"ideal": "b"}\n'}, {}, "samples, line 1: a sample needs an 'input'"),
    ],
)
def test_a_bad_file_is_named_by_place_and_keeps_nothing(workspace, user, files, options, message):
    options = options or ({"eval": "capitals-match"} if files else {})
    with pytest.raises(ImportProblem, match=message):
        _import(workspace, user, **{"spec": SPEC, "samples": SAMPLES, **files}, **options)
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    assert not Evaluator.objects.filter(workspace=workspace).exists()


def test_the_api_call_the_migration_guide_shows(api, workspace):
    """docs/migrate.md: spec, samples and options={"eval": …} to /imports/openai-evals-registry/."""
    body = {
        "spec": SimpleUploadedFile("capitals.yaml", SPEC),
        "samples": SimpleUploadedFile("samples.jsonl", SAMPLES),
        "options": json.dumps({"eval": "capitals-fuzzy"}),
    }
    response = api.post("/api/v1/imports/openai-evals-registry/", body, format="multipart")
    assert response.status_code == 201, response.content
    lines = {line["source"]: line for line in response.json()["report"]["lines"]}
    assert lines["capitals-fuzzy.dev.v0"]["became"].endswith("1.0.0")
    assert lines["capitals-custom.dev.v0"]["problem"]
