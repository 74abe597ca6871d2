"""An import runs as a background task through a real Celery worker to `completed`."""

import time

import pytest

from evalsets import selectors
from evalsets.importing import import_create
from evalsets.models import EvalSetImport
from tests.evalsets.conftest import jsonl, upload

pytestmark = pytest.mark.integration


def wait_finished(job: EvalSetImport, timeout: float = 60) -> EvalSetImport:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job.refresh_from_db()
        if job.is_finished:
            return job
        time.sleep(0.2)
    raise AssertionError(f"import still {job.status} after {timeout}s")


def test_generated_jsonl_imports_through_the_worker(celery_worker_inproc, evalset):
    records = [
        {"question": f"Question {i}?", "answer": str(i), "tags": ["even" if i % 2 == 0 else "odd"]}
        for i in range(6000)
    ]
    job = import_create(evalset=evalset, user=None, upload=upload("gen.jsonl", jsonl(records)))
    assert job.status == "queued"
    job = wait_finished(job)
    assert job.status == "completed", job.message
    assert job.rows_done == job.rows_total == job.rows_imported == 6000
    assert job.started_at is not None and job.finished_at >= job.started_at
    assert selectors.items_list(evalset=evalset, tag="odd").count() == 3000
    # a second delivery of the same task finds the job claimed and does nothing
    from evalsets.tasks import run_import

    assert run_import.apply(args=[job.pk]).get() == "skipped"
    assert selectors.draft_count(evalset) == 6000


def test_a_bad_file_fails_in_the_worker_and_saves_nothing(celery_worker_inproc, evalset):
    body = jsonl([{"question": "ok"}] * 10) + "{broken\n"
    job = wait_finished(import_create(evalset=evalset, user=None, upload=upload("b.jsonl", body)))
    assert job.status == "failed"
    assert job.errors[0]["line"] == 11 and job.errors[0]["problem"].startswith("not valid JSON")
    assert selectors.draft_count(evalset) == 0
