"""Imports of large files run on a worker: the files wait in storage with the import `queued`,
the worker's claim runs it once, all or nothing, on the same row, and the files go; the API
answers 202 with a URL to poll, the page follows the import, and an import no worker took is
found again (`assay import` waiting for one: tests/clients/test_import_cli.py)."""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from assay import services
from evalsets.models import EvalSet
from experiments.models import Experiment
from imports.models import ImportRun, ImportStatus
from imports.services import import_execute, import_run, imports_stalled

FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_evals"
DEFINITION = (FIXTURES / "definition.json").read_bytes()
DATA = (FIXTURES / "data.jsonl").read_bytes()
FILES = {"definition": DEFINITION, "data": DATA}
SMALL = 100  # bytes: every fixture's files are larger in all


def _queued(workspace, user, files=FILES):
    return import_run(
        workspace=workspace, user=user, kind="openai-evals", files=files, queue_over=SMALL
    )


@pytest.mark.django_db
def test_a_worker_imports_large_files_once_on_the_same_row(workspace, user):
    run, new = _queued(workspace, user)
    assert new and run.status == ImportStatus.QUEUED
    assert all(default_storage.exists(path) for path in run.file_paths.values())
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    assert _queued(workspace, user) == (run, False)  # the same files while it waits
    done = import_execute(run_id=run.pk)
    assert (done.pk, done.status, done.error) == (run.pk, ImportStatus.COMPLETED, "")
    assert done.started_at <= done.finished_at
    assert not any(default_storage.exists(path) for path in run.file_paths.values())
    assert import_execute(run_id=run.pk) is None  # delivered twice: run once
    assert EvalSet.objects.filter(workspace=workspace).count() == 1
    assert Experiment.objects.filter(workspace=workspace).count() == 1
    # the report is the one a request's import writes of the same files
    elsewhere = services.workspace_create(name="Other", slug="other", owner=user)
    inline, _ = import_run(workspace=elsewhere, user=user, kind="openai-evals", files=FILES)
    assert [line["became"] for line in done.report["lines"]] == [
        line["became"] for line in inline.report["lines"]
    ]


@pytest.mark.django_db
def test_a_problem_the_worker_finds_fails_the_import_and_keeps_nothing(workspace, user):
    bad = {"definition": DEFINITION, "data": b'{"item": {"ticket_text": "x"}}\nnot json\n' * 20}
    run, _ = _queued(workspace, user, bad)
    done = import_execute(run_id=run.pk)
    assert done.status == ImportStatus.FAILED
    assert done.error.startswith("data, line 2: not JSON")
    assert not EvalSet.objects.filter(workspace=workspace).exists()
    assert not any(default_storage.exists(path) for path in run.file_paths.values())
    again, new = _queued(workspace, user, bad)  # a failed import is not reused
    assert new and again.pk != run.pk


@pytest.mark.django_db
def test_imports_no_worker_took_or_finished_are_found_again(workspace, user):
    lost, _ = _queued(workspace, user)
    fresh, _ = _queued(workspace, user, {**FILES, "data": DATA + b"\n"})
    dead, _ = _queued(workspace, user, {**FILES, "data": DATA + b"\n\n"})
    long_ago = timezone.now() - timedelta(hours=2)
    ImportRun.objects.filter(pk=lost.pk).update(created_at=long_ago)
    ImportRun.objects.filter(pk=dead.pk).update(status="running", started_at=long_ago)
    assert sorted(imports_stalled()) == sorted([lost.pk, dead.pk])
    assert fresh.pk not in imports_stalled()
    assert import_execute(run_id=dead.pk).status == ImportStatus.COMPLETED  # claimed again


def _post(api):
    files = {
        "definition": SimpleUploadedFile("eval.json", DEFINITION),
        "data": SimpleUploadedFile("data.jsonl", DATA),
    }
    return api.post("/api/v1/imports/openai-evals/", files, format="multipart")


def test_the_api_answers_202_and_a_worker_completes_it(
    celery_worker_inproc, api, workspace, settings
):
    settings.ASSAY_IMPORT_INLINE_BYTES = SMALL
    answer = _post(api)
    assert answer.status_code == 202, answer.content
    body = answer.json()
    assert body["status"] == "queued"
    assert body["poll_url"].endswith(f"/api/v1/imports/{body['id']}/")
    deadline = time.monotonic() + 60
    polled = body
    while polled["status"] != "completed" and time.monotonic() < deadline:
        time.sleep(0.2)
        polled = api.get(body["poll_url"]).json()
    assert polled["status"] == "completed", polled
    assert any("metric exact_match" in line["became"] for line in polled["report"]["lines"])
    assert _post(api).status_code == 200  # the same files again: the first import


def test_the_page_follows_a_queued_import(web, workspace, user, settings):
    settings.ASSAY_IMPORT_INLINE_BYTES = SMALL
    run, _ = _queued(workspace, user)
    page = web.get(f"/w/{workspace.slug}/imports/{run.public_id}/")
    text = page.content.decode()
    assert 'id="import-waiting"' in text and 'hx-trigger="every 1s"' in text
    import_execute(run_id=run.pk)
    text = web.get(f"/w/{workspace.slug}/imports/{run.public_id}/").content.decode()
    assert 'id="import-waiting"' not in text and "hx-trigger" not in text
    assert 'id="import-report"' in text


@pytest.mark.django_db
def test_one_import_of_the_same_files_is_under_way_at_a_time(workspace, user):
    from imports.services import _queued as queued_now
    from imports.services import content_hash

    run, _ = _queued(workspace, user)
    # a second request that read "none under way" just before the first one's row committed
    record = {"workspace": workspace, "kind": "openai-evals", "created_by": user}
    record |= {"content_hash": content_hash(kind="openai-evals", files=FILES, options={})}
    again, new = queued_now(record, FILES, {})
    assert (again.pk, new) == (run.pk, False)
    assert ImportRun.objects.count() == 1


@pytest.mark.django_db
def test_a_worker_whose_claim_was_taken_over_records_nothing(workspace, user):
    from assay.jobs import job_claim
    from imports.services import Superseded, _executed

    run, _ = _queued(workspace, user)
    claimed = job_claim(model=ImportRun, pk=run.pk, queued="queued", running="running")
    # its claim ran out and a second worker claimed the import again
    ImportRun.objects.filter(pk=run.pk).update(started_at=timezone.now() + timedelta(seconds=1))
    with pytest.raises(Superseded):
        _executed(claimed)
    assert ImportRun.objects.get(pk=run.pk).status == ImportStatus.RUNNING
    assert not EvalSet.objects.filter(workspace=workspace).exists()  # rolled back
    assert import_execute(run_id=run.pk) is None  # the second worker holds it
