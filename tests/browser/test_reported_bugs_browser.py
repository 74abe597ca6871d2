"""Headless Chromium, one test per bug users reported (issue 17): an import with unknown fields
(1), live progress (2), pasted Python (7). Phone widths (3), corrections in place (4), row
numbers (5) and the editor (6) have their own browser tests beside this one."""

import pytest

from evalsets import services as evalset_services
from evalsets.models import EvalSet
from experiments import services
from experiments.models import ExperimentChunk
from experiments.scoring import (
    chunk_claim,
    chunk_complete,
    chunk_run,
    experiment_begin,
    experiment_run_inline,
)
from tests.support.factories import make_code_version, make_evalset_version, qa_rows
from tests.support.fixtures import screenshot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COLUMNS = [
    {"name": "question", "content_type": "Text", "required": True, "description": ""},
    {"name": "answer", "content_type": "Text", "required": False, "description": ""},
]


@pytest.fixture
def evalset(workspace, user):
    return evalset_services.evalset_create(
        workspace=workspace, user=user, name="Capitals", columns=COLUMNS
    )


def upload(page, live_server, evalset, path, encoding=None):
    page.goto(f"{live_server.url}/w/acme/evalsets/{evalset.public_id}/import/")
    assert "Limits:" in page.inner_text("#import-limits")
    if encoding:
        page.select_option("#id_encoding", encoding)
    page.set_input_files("#id_file", str(path))
    page.click("#upload-file")


def test_bug1_unknown_fields_are_ignored_previewed_and_never_corrupt_the_set(
    live_server, page, evalset, tmp_path, celery_worker_inproc
):
    source = tmp_path / "capitals.csv"
    lines = [f"Capital of country {i}?,City {i},colour {i}" for i in range(7)]
    source.write_text("question,answer,colour\n" + "\n".join(lines) + "\n")
    sign_in(page, live_server)
    upload(page, live_server, evalset, source)
    page.wait_for_selector("#mapping-table")
    assert page.input_value("#id_map_2") == "__ignore__"  # colour matches no column
    preview = page.locator("#import-preview tbody tr")
    assert preview.count() == 5 and "The first 5 rows" in page.inner_text("#import-preview")
    assert "City 0" in preview.first.inner_text() and "colour" not in preview.first.inner_text()
    screenshot(page, "bug1-import-preview")
    page.click("#start-import")
    page.wait_for_selector("#import-progress[data-status='completed']", timeout=60_000)
    assert "7 rows imported" in page.inner_text("#import-progress")
    evalset.refresh_from_db()
    assert [c["name"] for c in evalset.columns] == ["question", "answer"]

    nothing = tmp_path / "nothing.csv"
    nothing.write_text("foo,bar\n1,2\n")
    upload(page, live_server, evalset, nothing)
    page.wait_for_selector("#mapping-table")
    page.click("#start-import")
    page.wait_for_selector("#mapping-errors")
    assert "question" in page.inner_text("#mapping-errors")
    assert EvalSet.objects.get(pk=evalset.pk).items.count() == 7  # nothing half-saved
    screenshot(page, "bug1-import-refused")


def test_bug1_a_chinese_windows_file_gets_one_message_and_an_encoding_choice(
    live_server, page, evalset, tmp_path, celery_worker_inproc
):
    source = tmp_path / "zh.csv"
    source.write_bytes("question,answer\n法国的首都是哪里,巴黎\n".encode("gb18030"))
    sign_in(page, live_server)
    upload(page, live_server, evalset, source)
    page.wait_for_selector("#import-form .error, #import-form .errorlist")
    text = page.inner_text("#import-form")
    assert "The file is not UTF-8 text" in text and "It looks like GB18030" in text
    assert text.count("not UTF-8") == 1  # one file-level message, not one per line
    screenshot(page, "bug1-import-encoding")
    # the guessed encoding is chosen already: choosing the file again is the only step
    assert page.input_value("#id_encoding") == "gb18030"
    assert "GB18030" in page.inner_text("#encoding-guess")
    page.set_input_files("#id_file", str(source))
    page.click("#upload-file")
    page.wait_for_selector("#mapping-table")
    assert "巴黎" in page.inner_text("#import-preview")
    page.click("#start-import")
    page.wait_for_selector("#import-progress[data-status='completed']", timeout=60_000)
    assert "1 row imported" in page.inner_text("#import-progress")


def run_one_chunk(experiment_id: int) -> None:
    chunk = ExperimentChunk.objects.filter(experiment_id=experiment_id).order_by("index").first()
    claimed = chunk_claim(chunk_id=chunk.pk)
    assert claimed is not None
    chunk, token = claimed
    assert chunk_run(chunk=chunk, token=token, keeper=False) == "done"
    chunk_complete(chunk=chunk, token=token)


def test_bug2_progress_follows_results_and_the_title_badge_follows_the_status(
    live_server, page, workspace, user
):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40))
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="live",
        evalset_version=version,
        bindings=[{"evaluator_version": make_code_version(workspace=workspace, user=user)}],
        chunk_size=10,
    )
    services.experiment_launch(experiment=experiment)
    experiment_begin(experiment_id=experiment.pk)
    run_one_chunk(experiment.pk)  # 10 of 40 results, the rest not started
    sign_in(page, live_server)
    page.goto(f"{live_server.url}/w/acme/experiments/{experiment.public_id}/")
    bar = page.locator("#progress .progress")
    assert bar.get_attribute("aria-valuenow") == "25"
    assert page.inner_text("#progress-text").startswith("10 of 40 results · 25.0%")
    assert "status-running" in page.locator("#title-status .badge").get_attribute("class")
    assert page.inner_text("#throughput") != "—"
    screenshot(page, "bug2-progress-running")
    experiment_run_inline(experiment_id=experiment.pk)
    # the poll swaps the title's badge, then the page reloads with the final numbers
    page.wait_for_selector("#title-status .status-completed", timeout=15_000)
    page.wait_for_selector("#progress[data-status=completed]", timeout=15_000)
    assert page.locator("#progress .progress").get_attribute("aria-valuenow") == "100"


PASTED = """from dataclasses import dataclass
from collections import Counter
import statistics


@dataclass
class Check:
    word: str
    weight: float = 1.0


def exec_evaluation(turn):
    output: str = turn["evaluate_target_output_fields"]["actual_output"]["text"]
    counts = Counter(output.lower().split())
    checks = [Check("paris"), Check("capital", 0.5)]
    score: float = statistics.fmean([c.weight if counts[c.word] else 0.0 for c in checks])
    return EvalOutput(score=score, reason=f"{len(counts)} words")
"""


def test_bug7_python_that_users_paste_runs_in_the_debug_panel(live_server, page, user, workspace):
    sign_in(page, live_server)
    page.click("text=New evaluator")
    page.check("input[name=source][value=code]")
    page.fill("#id_name", "Pasted")
    page.click("text=Create evaluator")
    page.wait_for_selector(".CodeMirror")
    imports = page.inner_text("#python-imports")
    for module in ("dataclasses", "collections", "statistics", "typing", "hashlib"):
        assert module in imports
    page.evaluate("(s) => document.querySelector('.CodeMirror').CodeMirror.setValue(s)", PASTED)
    page.click("#save-draft")
    page.wait_for_selector("text=Draft saved")
    page.fill("#turn-var-actual_output", "Paris is the capital")
    page.keyboard.press("Control+Enter")
    page.wait_for_selector(".debug-result")
    result = page.locator(".debug-result").first
    assert result.locator(".score").inner_text() == "0.75"
    assert "4 words" in result.locator(".reason").inner_text()
    screenshot(page, "bug7-pasted-python")
    assert page.console_errors == []
