"""The `assay` CLI end to end, as a CI job uses it: push an evaluation set from a CSV, run the
app's task module against it, list the runs, export results, mark a baseline, and gate
candidates (exit 0 for the same answers, exit 1 with annotations for a real regression)."""

from __future__ import annotations

import csv
import json
import sys
import textwrap

import pytest
from assay_client import Client
from assay_client.cli import main
from click.testing import CliRunner

from tests.clients.conftest import word_rows

pytestmark = pytest.mark.django_db(transaction=True)

ROWS = 30
APP = '''
"""The application under test: answers a word row."""


def answer(row):
    return "You said " + row["input"].split()[-1]


def worse(row):
    """A regression: only every third row is still right."""
    i = int(row["input"].rsplit("w", 1)[1])
    return answer(row) if i % 3 == 0 else "I am not sure"


def interrupted(row):
    raise KeyboardInterrupt
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A checkout of the application: its module and its evaluation set file, as the current
    directory (the CLI imports the task from there)."""
    (tmp_path / "words_app.py").write_text(textwrap.dedent(APP))
    with (tmp_path / "words.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["input", "reference_output"])
        writer.writeheader()
        writer.writerows(word_rows(ROWS))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("words_app", None)


def assay(*args: str):
    """Run `assay ARGS` in this process; stdout and stderr are kept apart."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def ok(*args: str):
    result = assay(*args)
    assert result.exit_code == 0, result.output
    return result


def run_words(task: str, name: str, *extra: str):
    return assay(
        "run",
        "--task",
        f"words_app:{task}",
        "--evalset",
        "Words@1.0.0",
        "--evaluator",
        "Contains@1.0.0",
        "--name",
        name,
        "--concurrency",
        "4",
        *extra,
    )


def last_output(path) -> dict:
    """The last `key=value` lines of a $GITHUB_OUTPUT file, as a dict."""
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_a_ci_job_pushes_runs_exports_marks_and_gates(project, assay_env, contains, monkeypatch):
    outputs, summary = project / "github_output", project / "step_summary.md"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))

    pushed = ok("evalset", "push", "words.csv", "--name", "Words")
    assert f"Committed Words@1.0.0 ({ROWS} rows)" in pushed.stdout

    # the baseline run, as JSON
    first = run_words("answer", "baseline", "--json")
    assert first.exit_code == 0, first.output
    baseline = json.loads(first.stdout)
    assert baseline["status"] == "completed"
    [numbers] = baseline["evaluators"]
    assert (numbers["name"], numbers["passed"], numbers["fails"]) == ("Contains", ROWS, 0)
    assert last_output(outputs)["experiment_id"] == baseline["id"]
    assert f"experiment {baseline['id']}" in first.stderr

    # the same answers again, shown as a table
    second = run_words("answer", "same answers")
    assert second.exit_code == 0, second.output
    same_id = last_output(outputs)["experiment_id"]
    assert same_id != baseline["id"]
    table = second.stdout
    assert "Contains" in table and "100.0%" in table and same_id in table

    listed = json.loads(ok("experiments", "list", "--json").stdout)
    assert [e["id"] for e in listed] == [same_id, baseline["id"]]
    assert [e["evalset_name"] for e in listed] == ["Words", "Words"]
    filtered = ok("experiments", "list", "--evalset", "Words@1.0.0", "--status", "completed")
    assert "baseline" in filtered.stdout and "same answers" in filtered.stdout

    exported = ok("results", baseline["id"], "--format", "jsonl")
    lines = [json.loads(line) for line in exported.stdout.splitlines()]
    assert len(lines) == ROWS
    assert {(r["evaluator"], r["verdict"]) for r in lines} == {("Contains", "pass")}
    assert sorted(r["position"] for r in lines) == list(range(ROWS))
    ok("results", baseline["id"], "--format", "csv", "--output", "results.csv")
    with (project / "results.csv").open(newline="") as handle:
        assert len(list(csv.DictReader(handle))) == ROWS

    marked = ok("baseline", baseline["id"])
    assert "is a baseline" in marked.stdout

    # the same answers pass the gate against the latest baseline
    passed = ok("gate", "--baseline", "latest", "--candidate", same_id)
    assert "Assay gate passed" in passed.stdout and "::error" not in passed.stdout
    assert "✅ Assay gate passed" in summary.read_text()

    # a real regression fails it, with an annotation and the summary appended
    worse = run_words("worse", "regression")
    assert worse.exit_code == 0, worse.output
    worse_id = last_output(outputs)["experiment_id"]
    failed = assay("gate", "--baseline", "latest", "--candidate", worse_id)
    assert failed.exit_code == 1, failed.output
    assert "Assay gate FAILED: regression against baseline" in failed.stdout
    assert "Contains: pass rate dropped 66.7 pts" in failed.stdout
    [annotation] = [line for line in failed.stdout.splitlines() if line.startswith("::error")]
    assert annotation.startswith("::error title=Assay gate%3A Contains::pass rate dropped 66.7 pts")
    written = summary.read_text()
    assert written.index("✅ Assay gate passed") < written.index("❌ Assay gate failed")
    assert "| Contains | 30 | 100.0% | 33.3% | \u221266.7 pts |" in written

    # the gate's JSON is the API's answer
    gated = assay("gate", "--baseline", baseline["id"], "--candidate", worse_id, "--json")
    assert gated.exit_code == 1 and "::error title=" in gated.stderr
    as_json = json.loads(gated.stdout)
    assert as_json["passed"] is False
    assert as_json["evaluators"][0]["regressions"] == 20
    assert as_json["evaluators"][0]["improvements"] == 0

    # a new version of the set from JSONL, with one more column: the next patch version
    more = [{**row, "topic": "words"} for row in word_rows(ROWS + 2)]
    (project / "more.jsonl").write_text("".join(json.dumps(r) + "\n" for r in more))
    again = ok("evalset", "push", "more.jsonl", "--name", "Words", "--note", "two more")
    assert f"Committed Words@1.0.1 ({ROWS + 2} rows)" in again.stdout
    with Client() as client:
        columns = client.evalset_by_name("Words")["columns"]
    assert [c["name"] for c in columns] == ["input", "reference_output", "topic"]

    # without a baseline, "latest" is a usage error naming the field
    ok("baseline", baseline["id"], "--unset")
    none_left = assay("gate", "--baseline", "latest", "--candidate", worse_id)
    assert none_left.exit_code == 2
    assert "baseline: No completed run on this evalset is marked as a baseline." in none_left.stderr


def test_a_run_that_does_not_complete_exits_1_and_is_cancelled(
    project, assay_env, client, words, contains
):
    result = run_words("interrupted", "stopped")
    assert result.exit_code == 1, result.output
    assert "Interrupted: the experiment was cancelled." in result.stderr
    [experiment] = client.experiments()
    assert experiment["name"] == "stopped" and experiment["status"] == "cancelled"


def test_a_task_that_cannot_be_imported_is_a_usage_error(project, clean_env):
    missing = run_words("nope", "x")
    assert missing.exit_code == 2
    assert "words_app has no 'nope'" in missing.stderr
    (project / "broken_app.py").write_text("import not_a_module_anywhere\n")
    broken = assay(
        "run", "--task", "broken_app:f", "--evalset", "W@1.0.0", "--evaluator", "C@1.0.0"
    )
    assert broken.exit_code == 2
    assert "cannot import 'broken_app': ModuleNotFoundError" in broken.stderr
    assert "Traceback" not in broken.output
    sys.modules.pop("broken_app", None)
