"""A garak import is capped and runs in the background: a report of more probes (attempts,
outputs, bytes, detectors per probe) than one import takes is a 400 naming the count and the
cap, with nothing made; an accepted one is a queued job (202 and the URL to poll) that a real
Celery worker imports probe by probe, the page and the API showing probes done of N, then the
experiments, or the error. A job's task delivered twice runs once; one claimed again goes on
from its first probe not imported."""

import json
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from evalsets.models import EvalSet
from evaluators.models import Evaluator
from experiments.models import Experiment, GarakImport
from experiments.services import garak_import_claim, garak_import_run

IMPORT = "/api/v1/experiments/import-garak/"
PAGE = "/w/acme/experiments/import-garak/"


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def probes_report(probes: int, *, attempts: int = 1, outputs: int = 1, detectors: int = 1) -> bytes:
    """A garak report of `probes` probes, each with its attempts, outputs and detectors."""
    lines = [
        {"entry_type": "start_run setup", "transient.run_id": f"run-{probes}", "run.seed": 1},
        {"entry_type": "init", "garak_version": "0.17.1", "run": f"run-{probes}"},
    ]
    for p in range(probes):
        for a in range(attempts):
            lines.append(
                {
                    "entry_type": "attempt", "uuid": f"{p}-{a}", "seq": a, "status": 2,
                    "probe_classname": f"probe.P{p}", "prompt": f"prompt {a}",
                    "outputs": [f"out {i}" for i in range(outputs)],
                    "detector_results": {f"det.D{d}": [0.0] * outputs for d in range(detectors)},
                }
            )  # fmt: skip
    lines.append({"entry_type": "completion", "run": f"run-{probes}"})
    return "\n".join(json.dumps(line) for line in lines).encode()


def sent(data: bytes) -> dict:
    return {"file": SimpleUploadedFile("scan.report.jsonl", data)}


def nothing_made(media) -> None:
    assert not EvalSet.objects.exists() and not Evaluator.objects.exists()
    assert not Experiment.objects.exists() and not GarakImport.objects.exists()
    assert not [p for p in media.rglob("*") if p.is_file()]


# ----------------------------------------------------------------------------- caps


@pytest.mark.django_db
def test_more_probes_than_the_cap_is_a_400_naming_both(api, web, media):
    """The default cap, 50: 200 probes made 200 evalsets and launched 200 runs in one request."""
    response = api.post(IMPORT, sent(probes_report(51)), format="multipart")
    assert response.status_code == 400, response.content[:300]
    (message,) = response.json()["error"]["details"]["file"]
    assert "holds 51 probes" in message and "at most 50" in message
    page = web.post(PAGE, sent(probes_report(51)))
    assert page.status_code == 400 and "holds 51 probes" in page.content.decode()
    nothing_made(media)
    assert api.post(IMPORT, sent(probes_report(50)), format="multipart").status_code == 202


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("setting", "cap", "report", "named"),
    [
        ("ASSAY_GARAK_MAX_PROBES", 3, {"probes": 4}, "holds 4 probes"),
        ("ASSAY_GARAK_MAX_ATTEMPTS", 5, {"probes": 2, "attempts": 3}, "holds 6 scored attempts"),
        ("ASSAY_GARAK_MAX_OUTPUTS", 10, {"probes": 1, "attempts": 3, "outputs": 4}, "hold 12 "),
    ],
)
def test_each_cap_is_a_setting(api, media, settings, setting, cap, report, named):
    setattr(settings, setting, cap)
    response = api.post(IMPORT, sent(probes_report(**report)), format="multipart")
    assert response.status_code == 400, response.content[:300]
    (message,) = response.json()["error"]["details"]["file"]
    assert named in message and f"at most {cap} ({setting})" in message
    nothing_made(media)


@pytest.mark.django_db
def test_a_file_over_the_size_cap_and_a_probe_with_too_many_detectors(api, media, settings):
    settings.ASSAY_GARAK_MAX_REPORT_BYTES = 1000
    response = api.post(IMPORT, sent(probes_report(20)), format="multipart")
    assert response.status_code == 400
    assert "at most 1,000 bytes" in response.json()["error"]["details"]["file"][0]
    settings.ASSAY_GARAK_MAX_REPORT_BYTES = 64 * 2**20
    response = api.post(IMPORT, sent(probes_report(1, detectors=21)), format="multipart")
    assert response.status_code == 400
    message = response.json()["error"]["details"]["file"][0]
    assert "Probe probe.P0 has 21 detectors" in message and "at most 20" in message
    nothing_made(media)


@pytest.mark.django_db
def test_setup_interval_settings_no_run_takes_are_a_400_naming_the_line(api, media):
    data = probes_report(1).replace(b'"run.seed": 1', b'"run.seed": "one"')
    response = api.post(IMPORT, sent(data), format="multipart")
    assert response.status_code == 400, response.content[:300]
    message = response.json()["error"]["details"]["file"][0]
    assert message.startswith("Line 1, garak's setup entry: seed is a whole number")
    nothing_made(media)


# ----------------------------------------------------------------------------- the job


def run_here(job: GarakImport) -> GarakImport:
    return garak_import_run(job=garak_import_claim(job_id=job.pk))


@pytest.mark.django_db
def test_the_request_only_queues_and_the_job_imports_probe_by_probe(api, web, media):
    response = api.post(IMPORT, sent(probes_report(3)), format="multipart")
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["probes_done"], body["probes_total"]) == ("queued", 0, 3)
    assert not Experiment.objects.exists() and not EvalSet.objects.exists()
    job = GarakImport.objects.get(public_id=body["id"])
    assert job.file_path and (media / job.file_path).is_file()  # kept for the worker
    page = web.get(f"{PAGE}{job.public_id}/").content.decode()
    assert "0 of 3 probes imported" in page and "hx-trigger" in page
    done = run_here(job)
    assert (done.status, done.probes_done, done.file_path) == ("completed", 3, "")
    assert not [p for p in media.rglob("*") if p.is_file()]  # the stored report is gone
    made = api.get(body["poll_url"]).json()["experiments"]
    assert sorted(e["probe_name"] for e in made) == ["probe.P0", "probe.P1", "probe.P2"]
    assert {e["status"] for e in made} == {"queued"}  # launched
    page = web.get(f"{PAGE}{job.public_id}/").content.decode()
    assert "3 of 3 probes imported" in page and "hx-trigger" not in page
    assert all(f"/experiments/{e['id']}/" in page for e in made)
    listed = web.get(PAGE).content.decode()
    assert f"{PAGE}{job.public_id}/" in listed and "3 / 3" in listed


@pytest.mark.django_db
def test_a_task_delivered_twice_runs_once(api, media):
    from experiments.tasks import garak_import_run as task

    body = api.post(IMPORT, sent(probes_report(3)), format="multipart").json()
    job = GarakImport.objects.get(public_id=body["id"])
    assert task.apply(args=[job.pk]).get() == "completed"
    assert task.apply(args=[job.pk]).get() == "skipped"
    assert Experiment.objects.count() == 3 and EvalSet.objects.count() == 3


@pytest.mark.django_db
def test_a_job_whose_worker_died_goes_on_from_its_first_probe_not_imported(api, media):
    """The worker died after its first probe (committed with the job's count): while its claim
    is fresh another delivery skips it; once stale, it is claimed again and imports the rest."""
    from experiments.services.garak import garak_import_plan, garak_probe_import
    from experiments.tasks import garak_import_run as task

    body = api.post(IMPORT, sent(probes_report(3)), format="multipart").json()
    job = garak_import_claim(job_id=GarakImport.objects.get(public_id=body["id"]).pk)
    plan = garak_import_plan(workspace=job.workspace, data=(media / job.file_path).read_bytes())
    first = garak_probe_import(
        workspace=job.workspace, user=job.created_by, plan=plan, scan=plan.report.scans["probe.P0"]
    )
    job.experiments.add(first)
    GarakImport.objects.filter(pk=job.pk).update(probes_done=1)
    assert task.apply(args=[job.pk]).get() == "skipped"  # its worker may still be at it
    GarakImport.objects.filter(pk=job.pk).update(started_at="2000-01-01T00:00:00Z")
    assert task.apply(args=[job.pk]).get() == "completed"
    job.refresh_from_db()
    assert job.probes_done == 3 and job.experiments.count() == 3
    assert Experiment.objects.filter(probe_name="probe.P0").count() == 1


@pytest.mark.django_db
def test_a_job_that_fails_says_why_on_its_page_and_in_the_api(api, web, media):
    body = api.post(IMPORT, sent(probes_report(2)), format="multipart").json()
    job = GarakImport.objects.get(public_id=body["id"])
    (media / job.file_path).write_bytes(b"not a report any more")
    failed = run_here(job)
    assert failed.status == "failed" and failed.file_path == ""
    polled = api.get(body["poll_url"]).json()
    assert polled["status"] == "failed" and polled["experiments"] == []
    assert polled["message"].startswith("The stored report was refused: Line 1 is not JSON.")
    page = web.get(f"{PAGE}{job.public_id}/").content.decode()
    assert 'id="garak-import-message"' in page and "Line 1 is not JSON." in page
    assert not [p for p in media.rglob("*") if p.is_file()]
    other = api.post(IMPORT, sent(probes_report(3)), format="multipart").json()
    lost = GarakImport.objects.get(public_id=other["id"])
    (media / lost.file_path).unlink()
    assert run_here(lost).message == "The stored report is gone; upload it again."


@pytest.mark.django_db
def test_the_api_lists_the_workspaces_imports(api, outsider_api):
    body = api.post(IMPORT, sent(probes_report(1)), format="multipart").json()
    listed = api.get(IMPORT).json()
    assert [j["id"] for j in listed["results"]] == [body["id"]]
    assert outsider_api.get(IMPORT).json()["results"] == []
    assert outsider_api.get(body["poll_url"]).status_code == 404


@pytest.mark.integration
def test_a_real_worker_imports_the_job(celery_worker_inproc, api, media):
    """202 at once; the worker (a real Celery worker on the configured broker) claims the job
    the request queued once its row was committed, and imports each probe."""
    response = api.post(IMPORT, sent(probes_report(4)), format="multipart")
    assert response.status_code == 202
    job = GarakImport.objects.get(public_id=response.json()["id"])
    deadline = time.monotonic() + 120
    while not job.is_finished and time.monotonic() < deadline:
        time.sleep(0.2)
        job.refresh_from_db()
    assert job.status == "completed", (job.status, job.message)
    polled = api.get(response.json()["poll_url"]).json()
    assert (polled["probes_done"], polled["probes_total"], polled["percent"]) == (4, 4, 100)
    assert len(polled["experiments"]) == 4


@pytest.mark.django_db
def test_one_active_import_per_run_is_a_database_rule(api, media):
    """Two requests racing past the check cannot both queue the run: the second insert is
    refused by the database (the service then answers with the first's job)."""
    from django.db import IntegrityError, transaction

    body = api.post(IMPORT, sent(probes_report(2)), format="multipart").json()
    job = GarakImport.objects.get(public_id=body["id"])
    twin = {"workspace": job.workspace, "file_name": "again", "run_key": job.run_key}
    with pytest.raises(IntegrityError), transaction.atomic():
        GarakImport.objects.create(**twin)
    run_here(job)
    assert GarakImport.objects.create(**twin).status == "queued"  # once the first finished
