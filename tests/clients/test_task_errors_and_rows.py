"""`assay run` against the live server: a task that raises is counted, its first errors are
printed with their row, and more of them than `--max-task-errors` fail the run; `--rows FILE`
runs on a local file, whose rows reuse the version they made before."""

from __future__ import annotations

import csv
import json
import sys
import textwrap

import pytest
from assay_client.cli import main
from click.testing import CliRunner

from tests.clients.conftest import echo_last_word, word_rows

pytestmark = pytest.mark.django_db(transaction=True)

APP = '''
def answer(row):
    return "You said " + row["input"].split()[-1]


def broken(row):
    raise RuntimeError("model down for " + row["input"])


def flaky(row):
    """Raises on rows 2, 6 and 10 (every fourth from the second): 3 of 12."""
    if int(row["input"].rsplit("w", 1)[1]) % 4 == 1:
        raise TimeoutError("no answer\\nafter 30 s")
    return answer(row)
'''


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "tasks_app.py").write_text(textwrap.dedent(APP))
    write_csv(tmp_path / "words.csv", word_rows(12))
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    sys.modules.pop("tasks_app", None)


def write_csv(path, rows: list[dict]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def assay(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def run(task: str, *extra: str):
    source = () if "--rows" in extra else ("--evalset", "Words@1.0.0")
    return assay(
        "run", "--task", f"tasks_app:{task}", *source, "--evaluator", "Contains@1.0.0", *extra
    )


def test_a_task_that_raises_on_every_row_fails_the_run_and_shows_the_first_errors(
    project, assay_env, words, contains, client, monkeypatch
):
    outputs = project / "github_output"
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    result = run("broken", "--concurrency", "4", "--name", "all broken")

    assert result.exit_code == 1, result.output
    err = result.stderr
    assert "Task errors: 12 of 12 calls of the task failed (100.0%); the first 5:" in err
    shown = [line.strip() for line in err.splitlines() if line.startswith("  row ")]
    assert shown == [f"row {i + 1}: RuntimeError: model down for say w{i}" for i in range(5)]
    assert "Error: 12 task errors are more than --max-task-errors 0% allows" in err
    assert (
        "::error title=Assay run::12 task errors are more than --max-task-errors 0%25 allows; "
        "the first: row 1: RuntimeError: model down for say w0"
    ) in err
    assert "task_errors=12" in outputs.read_text().splitlines()
    [experiment] = client.experiments()
    assert experiment["name"] == "all broken"
    assert experiment["status"] == "completed"  # the server scored every row: all unknown
    assert "0%" in main.commands["run"].get_help(main.make_context("assay", ["run", "--help"]))


def test_max_task_errors_takes_a_share_or_a_count(project, assay_env, words, contains):
    by_default = run("flaky", "--json")
    assert by_default.exit_code == 1, by_default.output
    numbers = json.loads(by_default.stdout)  # stdout stays JSON; the errors go to stderr
    assert (numbers["task_calls"], numbers["task_errors"]) == (12, 3)
    assert [e["row"] for e in numbers["first_task_errors"]] == [2, 6, 10]
    assert numbers["first_task_errors"][0]["message"] == "TimeoutError: no answer\nafter 30 s"
    assert "  row 2: TimeoutError: no answer after 30 s" in by_default.stderr  # one line each

    share = run("flaky", "--max-task-errors", "25%")
    assert share.exit_code == 0, share.output
    assert "Task errors: 3 of 12 calls of the task failed (25.0%)" in share.stderr
    assert "(within --max-task-errors 25%)" in share.stderr

    assert run("flaky", "--max-task-errors", "3").exit_code == 0
    count = run("flaky", "--max-task-errors", "2")
    assert count.exit_code == 1
    assert "3 task errors are more than --max-task-errors 2 allows" in count.stderr

    clean = run("answer")
    assert clean.exit_code == 0 and "Task errors" not in clean.stderr

    for bad, why in (("lots", "give a count such as 10"), ("150%", "at most 100%")):
        refused = run("answer", "--max-task-errors", bad)
        assert refused.exit_code == 2 and why in refused.stderr


def test_the_same_rows_file_reuses_its_version_and_a_changed_one_makes_the_next(
    project, assay_env, contains, client
):
    first = run("answer", "--rows", "words.csv")
    assert first.exit_code == 0, first.output
    assert "rows words.csv: words@1.0.0 (a new version, 12 rows)" in first.stderr
    again = run("answer", "--rows", "words.csv", "--json")
    assert again.exit_code == 0, again.output
    assert "rows words.csv: words@1.0.0 (the version these rows made before" in again.stderr

    write_csv(project / "words.csv", word_rows(13))
    changed = run("answer", "--rows", "words.csv")
    assert changed.exit_code == 0, changed.output
    assert "rows words.csv: words@1.0.1 (a new version, 13 rows)" in changed.stderr

    runs = list(client.experiments())
    pinned = [(e["evalset_name"], e["evalset_version_string"]) for e in reversed(runs)]
    assert pinned == [("words", "1.0.0"), ("words", "1.0.0"), ("words", "1.0.1")]
    assert runs[-1]["name"] == "tasks_app:answer on words@1.0.0"
    assert [s["name"] for s in client.evalsets()] == ["words"]
    versions = client.request("GET", f"evalsets/{runs[0]['evalset']}/versions/")["results"]
    assert sorted(v["version"] for v in versions) == ["1.0.0", "1.0.1"]


def test_a_rows_file_can_name_its_set_and_bad_ones_are_refused_by_the_server(
    project, assay_env, contains, client
):
    jsonl = "".join(json.dumps(r) + "\n" for r in word_rows(4))
    (project / "smoke.jsonl").write_text(jsonl)
    named = run("answer", "--rows", "smoke.jsonl", "--evalset-name", "Smoke test")
    assert named.exit_code == 0, named.output
    assert "rows smoke.jsonl: Smoke test@1.0.0 (a new version, 4 rows)" in named.stderr

    (project / "notes.txt").write_text("input\nq\n")
    refused = run("answer", "--rows", "notes.txt")
    assert refused.exit_code == 2
    assert "Cannot tell the format of 'notes.txt'" in refused.stderr

    (project / "broken.jsonl").write_text('{"input": "a"}\n{"input": \n')
    broken = run("answer", "--rows", "broken.jsonl")
    assert broken.exit_code == 2 and "line 2: not valid JSON" in broken.stderr
    assert [s["name"] for s in client.evalsets()] == ["Smoke test"]  # nothing half-saved

    both = run("answer", "--rows", "smoke.jsonl", "--evalset", "Words@1.0.0")
    assert both.exit_code == 2 and "one of them" in both.stderr


def test_run_experiment_returns_the_task_errors_and_takes_a_rows_file(
    client, project, words, contains
):
    def task(row):
        if row["input"].endswith(("w3", "w7")):
            raise ValueError(f"cannot answer {row['input']}")
        return echo_last_word(row)

    result = client.run_experiment(
        evalset="Words@1.0.0", evaluators=["Contains@1.0.0"], task=task, concurrency=4
    )
    assert result.completed and result.evaluator("Contains").nones == 2
    assert (result.task_calls, result.task_errors) == (12, 2)
    assert [(e.row, e.repeat, e.message) for e in result.first_task_errors] == [
        (4, 0, "ValueError: cannot answer say w3"),
        (8, 0, "ValueError: cannot answer say w7"),
    ]
    assert not result.task_errors_allowed()
    assert result.task_errors_allowed("20%") and result.task_errors_allowed(2)
    assert not result.task_errors_allowed("1")

    from_file = client.run_experiment(
        rows=project / "words.csv", evalset_name="QA", evaluators="Contains@1.0.0", task=task
    )
    assert from_file.completed and from_file.task_errors == 2
    assert from_file.raw["evalset_name"] == "QA"
    assert from_file.raw["evalset_version_string"] == "1.0.0"
    assert from_file.name.endswith("<locals>.task on QA@1.0.0")
    with pytest.raises(ValueError, match="either evalset or rows"):
        client.run_experiment(evaluators="Contains@1.0.0", task=task)


def test_the_first_errors_are_the_lowest_rows_whatever_order_the_calls_finish_in():
    from assay_client.runner import TaskErrors

    errors = TaskErrors({f"id{i}": i for i in range(20)})
    for i in reversed(range(20)):  # the last rows finish first
        errors.note({"item_id": f"id{i}", "repeat": 0, "error": f"E: {i}"})
        errors.note({"item_id": f"id{i}", "repeat": 0, "actual_output": "fine"})
    assert errors.count == 20
    assert [(e.row, e.message) for e in errors.first] == [(i + 1, f"E: {i}") for i in range(5)]
