"""`assay import` against a live server: an OpenAI Evals definition and data imported, the
report printed line by line, the same files again reusing the import, a problem one line
naming the file and place with exit code 2; large files imported by a worker, waited for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from assay_client.cli import main
from click.testing import CliRunner

from imports.models import ImportRun

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_evals"
DEFINITION, DATA = str(FIXTURES / "definition.json"), str(FIXTURES / "data.jsonl")

pytestmark = pytest.mark.django_db(transaction=True)


def assay(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_an_import_prints_its_report_and_reuses_it(assay_env, workspace):
    done = assay("import", "openai-evals", DEFINITION, DATA)
    assert done.exit_code == 0, done.output
    run = ImportRun.objects.get(workspace=workspace)
    lines = done.output.splitlines()
    assert lines[0] == f"openai-evals imported {run.public_id}"
    assert any(
        line.startswith("  ✓ testing_criteria[0] string_check") and "metric exact_match" in line
        for line in lines
    )
    unmapped = "  ✗ testing_criteria[8] endpoint “Calls our service”: grader type 'endpoint'"
    assert unmapped + " has no Assay counterpart" in lines
    assert f"experiment: {run.report['created']['experiment'][0]}" in lines
    again = assay("import", "openai-evals", f"data={DATA}", f"definition={DEFINITION}", "--json")
    assert again.exit_code == 0 and json.loads(again.output)["id"] == str(run.public_id)


def test_options_reach_the_importer(assay_env, workspace):
    done = assay("import", "openai-evals", DEFINITION, DATA, "--option", "model=judge-2")
    assert done.exit_code == 0, done.output
    assert ImportRun.objects.get(workspace=workspace).status == "completed"


def test_a_problem_is_one_line_and_exit_2(assay_env, tmp_path):
    bad = tmp_path / "data.jsonl"
    bad.write_text('{"item": {"ticket_text": "x"}}\nnope\n')
    done = assay("import", "openai-evals", DEFINITION, str(bad))
    assert done.exit_code == 2
    assert done.output.startswith("Error: data, line 2: not JSON")
    assert len(done.output.strip().splitlines()) == 1
    missing = assay("import", "openai-evals", DEFINITION)
    assert missing.exit_code == 2 and "data: this file is required" in missing.output
    unnamed = assay("import", "nothing", DEFINITION)
    assert unnamed.exit_code == 2 and "NAME=PATH" in unnamed.output


def test_the_client_waits_for_a_workers_import(assay_env, workspace, settings, tmp_path):
    settings.ASSAY_IMPORT_INLINE_BYTES = 100  # bytes: these files are imported by the worker
    args = ["import", "openai-evals", DEFINITION]
    done = CliRunner().invoke(main, [*args, DATA])
    assert done.exit_code == 0, done.output
    run = ImportRun.objects.get(workspace=workspace)
    assert run.status == "completed" and run.started_at is not None  # a worker's claim
    assert done.output.splitlines()[0] == f"openai-evals imported {run.public_id}"
    bad = tmp_path / "data.jsonl"
    bad.write_bytes(b'{"item": {"ticket_text": "x"}}\nnot json\n' * 20)
    failed = CliRunner().invoke(main, [*args, str(bad)])
    assert failed.exit_code == 2
    assert failed.output.startswith("Error: data, line 2: not JSON")


def test_the_wait_for_a_worker_ends_at_the_timeout(assay_env, workspace, settings):
    settings.ASSAY_IMPORT_INLINE_BYTES = 100  # bytes: these files are imported by the worker
    done = CliRunner().invoke(main, ["import", "openai-evals", DEFINITION, DATA, "--timeout", "0"])
    run = ImportRun.objects.get(workspace=workspace)
    assert done.exit_code == 2
    assert f"The import {run.public_id} is still queued after 0 s" in done.output
