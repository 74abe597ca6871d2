"""`assay run --template NAME`: launch an experiment template from a shell or CI job and wait
for it — a template whose target runs on the server needs no task; one whose outputs come
from the client's code (saved from an `assay run`) takes --task; a template brings its own
set-up, so --evalset, --evaluator and --name are refused with it."""

from __future__ import annotations

import json

import pytest

from tests.clients.test_cli import ROWS, assay, ok, project, run_words  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_template_is_launched_by_name_with_and_without_a_task(
    project,  # noqa: F811
    assay_env,
    contains,
    client,
):
    ok("evalset", "push", "words.csv", "--name", "Words")
    first = run_words("answer", "baseline", "--json")
    assert first.exit_code == 0, first.output
    baseline = json.loads(first.stdout)
    saved = client.request(
        "POST",
        "experiment-templates/from-experiment/",
        json={"experiment": baseline["id"], "name": "Words nightly"},
    )
    client.request(
        "PATCH", f"experiment-templates/{saved['id']}/", json={"name_pattern": "nightly {template}"}
    )

    missing = assay("run", "--template", "Words nightly")
    assert missing.exit_code == 2 and "give --task" in missing.stderr

    pushed = assay("run", "--template", "Words nightly", "--task", "words_app:answer", "--json")
    assert pushed.exit_code == 0, pushed.output
    result = json.loads(pushed.stdout)
    assert result["experiment"]["name"] == "nightly Words nightly"
    assert result["status"] == "completed"
    [numbers] = result["evaluators"]
    assert (numbers["passed"], numbers["fails"]) == (ROWS, 0)

    columns = client.request(
        "POST",
        "experiment-templates/",
        json={
            "name": "Columns",
            "evalset_version": "Words@1.0.0",
            "bindings": [
                {
                    "evaluator_version": "Contains@1.0.0",
                    "latest": True,
                    "mapping": {
                        "actual_output": "column:reference_output",
                        "reference_output": "column:reference_output",
                    },
                }
            ],
        },
    )
    server_side = assay("run", "--template", columns["id"], "--json")
    assert server_side.exit_code == 0, server_side.output
    assert json.loads(server_side.stdout)["status"] == "completed"


def test_a_template_brings_its_own_setup(clean_env):
    refused = assay("run", "--template", "Nightly", "--evaluator", "Contains@1.0.0", "--name", "x")
    assert refused.exit_code == 2
    assert "--template brings its own set-up; drop --evaluator, --name" in refused.stderr
    unnamed = assay("run", "--evalset", "Words@1.0.0", "--evaluator", "Contains@1.0.0")
    assert unnamed.exit_code == 2 and "--task" in unnamed.stderr


def test_an_unknown_template_is_one_line(project, assay_env):  # noqa: F811
    missing = assay("run", "--template", "Nope")
    assert missing.exit_code == 2 and "No experiment template is named 'Nope'" in missing.stderr
