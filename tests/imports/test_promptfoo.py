"""The promptfoo importer (imports/promptfoo): a promptfooconfig.yaml (and the tests file it
names) → an evalset version, evaluators and a draft experiment binding them to their rows.
Fixtures in tests/imports/promptfoo/ are written from promptfoo's documentation (each names
its pages)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from assay import services as platform
from evalsets.models import EvalSet
from evaluators.models import Evaluator
from experiments import scoring as engine
from experiments.models import Experiment
from experiments.services import experiment_launch, outputs_push
from imports.kinds import ImportProblem
from imports.models import ImportRun, ImportStatus
from imports.services import import_run

HERE = Path(__file__).parent / "promptfoo"


def _files(*names: str) -> dict[str, bytes]:
    config, *rest = names
    files = {"config": (HERE / config).read_bytes()}
    if rest:
        files["tests"] = (HERE / rest[0]).read_bytes()
    return files


def _import(workspace, user, files, **options):
    run, _new = import_run(
        workspace=workspace, user=user, kind="promptfoo", files=files, options=options
    )
    return run


SUITE = "Translate to French: "
# the fixture's rows, an output for each, and promptfoo's verdict for each of its assertions
OUTPUTS = {
    "Hello world": "Bonjour le monde",
    "Good morning": "As an AI: Bonjour Good morning",
    "Good night": "bonne nuit",
    '{"a": 1}': '{"a": 1}',
}
EXPECTED = {
    ("Hello world", "not-contains"): "pass",
    ("Hello world", "equals"): "pass",
    ("Hello world", "icontains"): "pass",
    ("Hello world", "javascript: output.length < 100"): "pass",
    ("Good morning", "not-contains"): "fail",  # "As an AI"
    ("Good morning", "contains"): "pass",  # {{input}} filled in: "Good morning"
    ("Good morning", "icontains"): "fail",  # no "matin"
    ("Good morning", "regex ^[A-Z]"): "pass",
    ("Good morning", "contains-any Bon, Salut"): "pass",
    ("Good night", "not-contains"): "pass",
    ("Good night", "starts-with"): "fail",  # case-sensitive: "bonne"
    ("Good night", "python: words = output.split()"): "pass",
    ("Good night", "levenshtein ≤ 2"): "pass",  # one edit from "Bonne nuit"
    ('{"a": 1}', "not-contains"): "pass",
    ('{"a": 1}', "is-json"): "pass",
    ('{"a": 1}', "contains-json (schema)"): "pass",
    ('{"a": 1}', "rouge-n ≥ 0.5"): "fail",
    ('{"a": 1}', "bleu ≥ 0.5"): "fail",
}


def _verdicts(experiment) -> dict:
    experiment = experiment_launch(experiment=experiment)
    engine.experiment_begin(experiment_id=experiment.pk)
    items = experiment.evalset_version.items.order_by("position")
    outputs = [
        {"item_id": str(item.item_id), "actual_output": OUTPUTS[item.data["input"]["text"]]}
        for item in items
    ]
    experiment.refresh_from_db()
    outputs_push(experiment=experiment, outputs=outputs)
    engine.experiment_run_inline(experiment_id=experiment.pk)
    by_pk = {item.pk: item.data["input"]["text"] for item in items}
    return {
        (
            by_pk[r.item_id],
            r.binding.evaluator_version.evaluator.name.removeprefix(SUITE),
        ): r.verdict
        for r in experiment.results.select_related("binding__evaluator_version__evaluator")
    }


@pytest.mark.django_db
def test_the_evaluators_give_promptfoos_verdicts_on_the_rows_that_carry_them(workspace, user):
    run = _import(workspace, user, _files("promptfooconfig.yaml"))
    experiment = Experiment.objects.get(public_id=run.report["created"]["experiment"][0])
    assert (experiment.target_kind, experiment.status) == ("external", "draft")
    assert _verdicts(experiment) == EXPECTED  # rows without an assertion get no result


@pytest.mark.django_db
def test_the_report_lists_every_assertion_and_what_it_became(workspace, user):
    run = _import(workspace, user, _files("promptfooconfig.yaml"))
    lines = {line["source"]: line for line in run.report["lines"]}
    assertions = [s for s in lines if ", assert[" in s]
    assert len(assertions) == 1 + 3 + 4 + 4 + 4  # defaultTest's once, then each test's
    assert lines["config, tests[2], assert[3] (latency)"]["problem"].startswith("a latency")
    assert "weight 2 recorded" in lines["config, tests[0], assert[1] (icontains)"]["became"]
    assert lines["config, providers[0] (openai:gpt-4o-mini)"]["problem"]
    assert lines["config, tests[3], options"]["problem"].startswith("not used")
    # the two icontains assertions are one evaluator reading each row's value from a column
    icontains = Evaluator.objects.get(workspace=workspace, name=SUITE + "icontains")
    assert icontains.latest_version.config["metric"] == "contains"
    assert icontains.latest_version.config["options"] == {"case_sensitive": False}
    version = EvalSet.objects.get(workspace=workspace).versions.get()
    rows = {i.data["input"]["text"]: i.data for i in version.items.all()}
    assert rows["Good morning"]["expected_icontains"]["text"] == "matin"
    assert "expected_icontains" not in rows["Good night"]
    assert rows["Hello world"]["prompt"]["text"] == (
        'Translate the following text to French: "Hello world"'
    )
    assert len(run.report["created"]["evaluator"]) == 14


@pytest.mark.django_db
def test_tests_from_a_csv_file_become_judges_and_an_embedding_metric(workspace, user):
    platform.provider_create(
        workspace=workspace,
        name="Judge host",
        base_url="https://llm.test/v1",
        default_model="judge-1",
        api_key="sk-test-000000000000",
    )
    run = _import(workspace, user, _files("judged.yaml", "tests.csv"))
    kinds = {
        e.name.removeprefix("promptfoo: "): (e.kind, e.default_policy["threshold"])
        for e in Evaluator.objects.filter(workspace=workspace)
    }
    assert kinds == {
        "factuality": ("llm", 0.5),
        "llm-rubric": ("llm", 0.5),
        "contains": ("metric", 0.5),
        "model-graded-closedqa": ("llm", 0.5),
        "similar ≥ 0.8 (text-embedding-3-large)": ("metric", 0.8),
        "not-icontains": ("metric", 0.5),
    }
    rubric = Evaluator.objects.get(workspace=workspace, name="promptfoo: llm-rubric")
    messages = rubric.latest_version.config["messages"]
    assert "{{reference}}" in messages[1]["content"] and "{{prompt}}" in messages[1]["content"]
    lines = {line["source"] for line in run.report["lines"]}
    assert "tests.csv, row 2, assert[0] (factuality)" in lines


@pytest.mark.django_db
def test_judges_without_a_provider_are_a_problem_that_keeps_nothing(workspace, user):
    with pytest.raises(ImportProblem, match="factuality needs a judge model"):
        _import(workspace, user, _files("judged.yaml", "tests.csv"))
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    assert not Evaluator.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"config": b"tests: [\n  - vars: {a: 1"}, r"config, line \d+: not valid YAML"),
        (
            {"config": b"tests:\n  - vars: {a: x}\n    assert:\n      - type: equalz\n"},
            r"config, tests\[0\], assert\[0\]: unknown assertion type 'equalz'",
        ),
        ({"config": b"tests: file://cases.csv\n"}, "tests: the config reads its tests from"),
        (
            {"config": b"tests: file://cases.csv\n", "tests": b"a,__expected\nx,regex: (\n"},
            r"cases.csv, row 2, assert\[0\], value|regex",
        ),
        ({"config": b"- a list\n"}, "config: a promptfoo config is a mapping"),
    ],
)
def test_bad_input_is_named_by_place_and_keeps_nothing(workspace, user, files, message):
    with pytest.raises(ImportProblem, match=message):
        _import(workspace, user, files)
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    assert not Evaluator.objects.filter(workspace=workspace).exists()
    assert ImportRun.objects.get(workspace=workspace).status == ImportStatus.FAILED


@pytest.mark.django_db
def test_importing_the_same_suite_again_reuses_the_first_import(workspace, user):
    first = _import(workspace, user, _files("promptfooconfig.yaml"))
    again = _import(workspace, user, _files("promptfooconfig.yaml"))
    assert again.pk == first.pk
    assert EvalSet.objects.filter(workspace=workspace).count() == 1
    assert Evaluator.objects.filter(workspace=workspace).count() == 14


@pytest.mark.django_db
def test_the_api_imports_a_promptfoo_suite_with_its_tests_file(api, workspace):
    # promptfoo's JSONL test format: one test object a line (docs: configuration/test-cases)
    files = {
        "config": SimpleUploadedFile("promptfooconfig.yaml", b"tests: file://cases.jsonl\n"),
        "tests": SimpleUploadedFile(
            "cases.jsonl",
            b'{"vars": {"q": "2+2"}, "assert": [{"type": "equals", "value": "4"}]}\n'
            b'{"vars": {"q": "3+3"}, "assert": [{"type": "not-equals", "value": "7"}]}\n',
        ),
    }
    response = api.post("/api/v1/imports/promptfoo/", files, format="multipart")
    assert response.status_code == 201, response.content
    lines = [line["source"] for line in response.json()["report"]["lines"]]
    assert lines == [
        "cases.jsonl, line 1, assert[0] (equals)",
        "cases.jsonl, line 2, assert[0] (not-equals)",
    ]


def _aliases_nested(levels: int) -> bytes:
    """A config of a few hundred bytes whose aliases stand for 10**levels values (a "billion
    laughs" at levels=9): a var that is the last list."""
    lines = ['l0: &l0 ["ha","ha","ha","ha","ha","ha","ha","ha","ha","ha"]']
    for i in range(1, levels + 1):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 10) + "]")
    lines += ["prompts: ['{{q}}']", "tests:", f"  - vars: {{q: *l{levels}}}"]
    return "\n".join(lines).encode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "config",
    [_aliases_nested(6), b"prompts: ['{{q}}']\ntests:\n  - vars: {q: &loop [*loop]}\n"],
    ids=["nested aliases", "a recursive alias"],
)
def test_yaml_aliases_that_expand_beyond_the_file_are_refused(workspace, user, config):
    with pytest.raises(ImportProblem, match="aliases"):
        _import(workspace, user, {"config": config})
    assert not EvalSet.objects.filter(workspace=workspace).exists()
