"""The dataset importer on Langfuse and Phoenix exports written from their documentation
(tests/fixtures/datasets/README.md names the formats): the evalset's typed columns and rows,
the source of each row, the report line per column, bad files named by place, all or nothing,
and the same file imported twice made once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evalsets.models import EvalSet, EvalSetItem, EvalSetVersion
from imports.kinds import ImportProblem
from imports.models import ImportRun, ImportStatus
from imports.services import import_run

FIXTURES = Path(__file__).parent.parent / "fixtures" / "datasets"

pytestmark = pytest.mark.django_db


def _import(workspace, user, fixture: str, **options):
    files = {"file": (FIXTURES / fixture).read_bytes()}
    return import_run(workspace=workspace, user=user, kind="dataset", files=files, options=options)


def _version(run: ImportRun) -> EvalSetVersion:
    return EvalSetVersion.objects.get(public_id=run.report["created"]["evalset_version"][0])


def _rows(version: EvalSetVersion) -> list[dict]:
    items = EvalSetItem.objects.of_version(version).order_by("position")
    return [{k: v.get("text", v.get("messages")) for k, v in item.data.items()} for item in items]


def _columns(version: EvalSetVersion) -> list[tuple[str, str]]:
    return [(c["name"], c["content_type"]) for c in version.columns]


@pytest.mark.parametrize("name", ["langfuse_items.json", "langfuse_items.jsonl"])
def test_langfuse_items_become_a_version_with_typed_columns(workspace, user, name):
    run, created = _import(workspace, user, name)
    version = _version(run)
    assert created and version.evalset.name == "capitals-qa"
    assert _columns(version) == [
        ("question", "Text"),
        ("context", "Text"),
        ("reference_output", "Text"),
        ("metadata_difficulty", "Text"),
        ("metadata_points", "Text"),
        ("metadata_tags", "Text"),
    ]
    assert _rows(version) == [
        {
            "question": "What is the capital of France?",
            "context": "Geography quiz",
            "reference_output": "Paris",
            "metadata_difficulty": "easy",
            "metadata_points": "1",
            "metadata_tags": '["geo"]',
        },
        {
            "question": "What is the capital of Japan?",
            "reference_output": "Tokyo",
            "metadata_difficulty": "medium",
        },
    ]
    sources = [i.source for i in EvalSetItem.objects.of_version(version).order_by("position")]
    assert sources == [
        {"kind": "langfuse", "id": "item-capital-fr", "sourceTraceId": "trace-001"},
        {"kind": "langfuse", "id": "item-capital-jp"},
    ]
    lines = {(line["source"], line["became"] or line["problem"]) for line in run.report["lines"]}
    assert ("input.question", "column question (Text)") in lines
    assert ("expected output", "column reference_output (Text)") in lines
    assert ("metadata.tags", "column metadata_tags (Text)") in lines
    assert ("1 archived items", "left out, as Langfuse leaves them out") in lines


def test_a_langfuse_csv_reads_json_cells(workspace, user):
    run, _ = _import(workspace, user, "langfuse_items.csv", name="From CSV")
    version = _version(run)
    assert version.evalset.name == "From CSV"
    assert _rows(version) == [
        {"question": "2 + 2?", "reference_output": "4", "metadata_topic": "math"},
        {"question": "Largest planet?", "reference_output": "Jupiter", "metadata_topic": "space"},
    ]


def test_phoenix_examples_from_the_api(workspace, user):
    run, _ = _import(workspace, user, "phoenix_examples.json", name="phoenix qa")
    version = _version(run)
    assert _columns(version) == [
        ("question", "Text"),
        ("reference_output", "Text"),
        ("metadata_category", "Text"),
    ]
    assert _rows(version)[1] == {
        "question": "Who wrote Hamlet?",
        "reference_output": "Shakespeare",
        "metadata_category": "literature",
    }
    assert ("expected output.answer", "column reference_output (Text)") in {
        (line["source"], line["became"]) for line in run.report["lines"]
    }
    first = EvalSetItem.objects.of_version(version).order_by("position").first()
    assert first.source == {"kind": "phoenix", "id": "RGF0YXNldEV4YW1wbGU6MQ=="}


def test_phoenix_chat_messages_become_a_conversation(workspace, user):
    run, _ = _import(workspace, user, "phoenix_examples.jsonl", name="chats")
    version = _version(run)
    assert _columns(version) == [
        ("messages", "Conversation"),
        ("reference_output", "Text"),
        ("metadata_split", "Text"),
    ]
    first = _rows(version)[0]
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["reference_output"] == "Rome"


def test_a_phoenix_csv_download_gets_its_keys_back(workspace, user):
    run, _ = _import(workspace, user, "phoenix_download.csv", name="download")
    version = _version(run)
    assert _columns(version) == [
        ("question", "Text"),
        ("language", "Text"),
        ("reference_output", "Text"),
        ("metadata_category", "Text"),
    ]
    assert _rows(version)[1]["question"] == "Qui a écrit Hamlet ?"


def test_the_format_option_overrides_the_guess(workspace, user):
    # Phoenix's JSONL read as Langfuse items: `output` is not Langfuse's, so no reference
    run, _ = _import(workspace, user, "phoenix_examples.jsonl", name="as lf", format="langfuse")
    version = _version(run)
    assert [c["name"] for c in version.columns] == ["messages", "metadata_split"]
    assert ("expected output", "no item has one: the set has no reference column") in {
        (line["source"], line["problem"]) for line in run.report["lines"]
    }
    with pytest.raises(ImportProblem, match="format: use one of auto, langfuse, phoenix"):
        _import(workspace, user, "phoenix_examples.jsonl", format="braintrust")


def test_importing_twice_makes_one_set(workspace, user):
    first, _ = _import(workspace, user, "langfuse_items.json")
    again, created = _import(workspace, user, "langfuse_items.json")
    assert (created, again.pk) == (False, first.pk)
    assert EvalSet.objects.filter(workspace=workspace).count() == 1


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b'{"input": "a"}\n{"input": \n', "file, line 2: not valid JSON"),
        (b'[{"input": "a"}, 3]', "file, item 2: each item is a JSON object"),
        (b'{"data": [1, 2', "file: not valid JSON"),
        (b"id,input\n1,a,b\n", "file, line 2: this row has 3 cells"),
        (b"name,size\nx,1\n", "neither a Langfuse nor a Phoenix dataset export"),
    ],
)
def test_a_bad_file_is_named_by_place_and_keeps_nothing(workspace, user, data, message):
    with pytest.raises(ImportProblem, match=message):
        import_run(workspace=workspace, user=user, kind="dataset", files={"file": data})
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    assert ImportRun.objects.get(workspace=workspace).status == ImportStatus.FAILED


def test_a_bad_cell_is_named_by_row_and_column_and_nothing_is_kept(workspace, user):
    # a message list on one row makes `input` a Conversation; a bad role fails that row
    lines = [
        {"input": [{"role": "user", "content": "hi"}], "expectedOutput": "hello"},
        {"input": [{"role": "wizard", "content": "hi"}], "expectedOutput": "hello"},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    with pytest.raises(ImportProblem, match=r"^file, line 2, column input: "):
        import_run(workspace=workspace, user=user, kind="dataset", files={"file": data})
    assert not EvalSet.objects.filter(workspace=workspace).exists()


def test_a_taken_name_is_named(workspace, user):
    _import(workspace, user, "langfuse_items.csv", name="Taken")
    with pytest.raises(ImportProblem, match="^name: An evaluation set named 'Taken'"):
        _import(workspace, user, "phoenix_examples.json", name="Taken")


def test_an_input_key_named_like_the_reference_column_keeps_both(workspace, user):
    item = {"input": {"reference_output": "a draft"}, "expectedOutput": "the answer"}
    files = {"file": json.dumps([item]).encode()}
    run, _ = import_run(workspace=workspace, user=user, kind="dataset", files=files)
    version = _version(run)
    assert [c["name"] for c in version.columns] == ["reference_output", "reference_output_2"]
    assert _rows(version) == [{"reference_output": "a draft", "reference_output_2": "the answer"}]


def test_the_api_call_the_migration_guide_shows(api, workspace):
    """docs/migrate.md: `-F file=@items.json -F 'options={"name": …}'` to /imports/dataset/."""
    body = {
        "file": SimpleUploadedFile("items.json", (FIXTURES / "langfuse_items.json").read_bytes()),
        "options": json.dumps({"name": "capitals from the API"}),
    }
    response = api.post("/api/v1/imports/dataset/", body, format="multipart")
    assert response.status_code == 201, response.content
    assert EvalSet.objects.get(workspace=workspace).name == "capitals from the API"
    bad = {"file": SimpleUploadedFile("bad.jsonl", b'{"input": "a"}\n{"input": \n')}
    response = api.post("/api/v1/imports/dataset/", bad, format="multipart")
    assert response.status_code == 400
    problem = json.dumps(response.json())
    assert "file, line 2" in problem and "not valid JSON" in problem, problem


def test_phoenixs_openai_evals_download(workspace, user):
    run, _ = _import(workspace, user, "phoenix_openai_evals.jsonl", name="evals download")
    version = _version(run)
    assert _columns(version) == [("messages", "Conversation"), ("reference_output", "Text")]
    assert [row["reference_output"] for row in _rows(version)] == ["Rome", "Madrid"]


@pytest.mark.parametrize("options", [{"name": 5}, {"format": ["langfuse"]}, {"name": {}}])
def test_options_that_are_not_text_are_a_problem_of_the_options(api, workspace, options):
    body = {
        "file": SimpleUploadedFile("items.json", (FIXTURES / "langfuse_items.json").read_bytes()),
        "options": json.dumps(options),
    }
    response = api.post("/api/v1/imports/dataset/", body, format="multipart")
    assert response.status_code == 400, response.content
    assert "options" in response.json()["error"]["details"]
    assert not EvalSet.objects.filter(workspace=workspace).exists()
