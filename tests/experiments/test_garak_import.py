"""Importing a garak scan (tests/fixtures/garak, written by garak 0.17.1): the imported run's
eval numbers and hit log equal garak's own entries in the same file."""

import json
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from experiments import scoring as engine
from experiments.models import Experiment, GarakImport
from experiments.results.exports import export_stream
from experiments.services import garak_import_claim, garak_import_run
from experiments.services.garak import garak_scan_import

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Uploaded reports are stored until imported: in this test's own directory."""
    settings.MEDIA_ROOT = tmp_path / "media"


FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "garak"
COUNTS = ("passed", "fails", "nones", "total_evaluated", "total_processed", "intents", "hit_at_k")
INTERVAL = ("confidence_method", "confidence", "confidence_upper", "confidence_lower")


def garak_file(name: str, kind: str = "report") -> bytes:
    return (FIXTURES / f"{name}.{kind}.jsonl").read_bytes()


def entries(text: str, entry_type: str) -> list[dict]:
    return [r for r in map(json.loads, text.splitlines()) if r.get("entry_type") == entry_type]


def imported(workspace, user, name: str) -> Experiment:
    (experiment,) = garak_scan_import(workspace=workspace, user=user, data=garak_file(name))
    return engine.experiment_run_inline(experiment_id=experiment.pk)


@pytest.mark.parametrize(
    "name", ["random_detector", "random_detector_g3", "fail_pass_detectors", "nones_pass"]
)
def test_an_imported_scan_has_garaks_own_eval_numbers(workspace, user, name):
    run = imported(workspace, user, name)
    assert run.status == "completed" and run.probe_name == "test.Test"
    theirs = entries(garak_file(name).decode(), "eval")
    ours = entries("".join(export_stream(run, "report")), "eval")
    assert [r["detector"] for r in ours] == sorted(r["detector"] for r in theirs)
    by_detector = {r["detector"]: r for r in theirs}
    for record in ours:
        garak = by_detector[record["detector"]]
        assert {k: record.get(k) for k in COUNTS} == {k: garak.get(k) for k in COUNTS}
        assert record["probe"] == garak["probe"]
        # the run's interval settings, replayed with garak's resampling and seed: its bounds
        assert {k: record.get(k) for k in INTERVAL} == {k: garak.get(k) for k in INTERVAL}
        assert list(record)[: len(garak)] == list(garak)


@pytest.mark.parametrize("name", ["random_detector", "fail_pass_detectors"])
def test_an_imported_scan_writes_garaks_hit_log(workspace, user, name):
    run = imported(workspace, user, name)
    theirs = [json.loads(line) for line in garak_file(name, "hitlog").decode().splitlines()]
    ours = [json.loads(line) for line in "".join(export_stream(run, "hitlog")).splitlines()]
    same = ("goal", "attempt_id", "attempt_seq", "attempt_idx", "probe", "detector", "triggers")
    assert [{k: h[k] for k in same} for h in ours] == [{k: h[k] for k in same} for h in theirs]
    assert [h["score"] for h in ours] == pytest.approx([h["score"] for h in theirs])
    assert [h["output"]["text"] for h in ours] == [h["output"]["text"] for h in theirs]


def test_the_imported_scan_has_a_dashboard_per_detector_and_intent_tags(workspace, user, web):
    run = imported(workspace, user, "fail_pass_detectors")
    page = web.get(f"/w/acme/experiments/{run.public_id}/").content.decode()
    assert "garak: always.Fail" in page and "garak: always.Pass" in page
    summary = {a.binding.ext["detector"]: a.summary for a in run.aggregates.all()}
    assert summary["always.Fail"]["tags"]["T999test"]["fails"] == 40
    assert summary["always.Pass"]["pass_rate"] == 1.0


def test_two_scans_of_the_same_probe_compare_paired(workspace, user, api):
    """Each import is a new version of the probe's evalset, rows keeping their item ids, so
    the compare page and the gate pair them (McNemar on the same outputs)."""
    first = imported(workspace, user, "random_detector")
    second = imported(workspace, user, "random_detector_g3")  # 3 outputs per prompt, not 5
    assert first.evalset_version.evalset_id == second.evalset_version.evalset_id
    assert (first.evalset_version.version, second.evalset_version.version) == ("1.0.0", "1.0.1")
    assert second.evalset_version.items.count() == 24
    shared = set(first.evalset_version.items.values_list("item_id", flat=True)) & set(
        second.evalset_version.items.values_list("item_id", flat=True)
    )
    assert len(shared) == 24  # outputs 0–2 of each of the 8 prompts are the same rows
    response = api.get(
        "/api/v1/experiments/gate/",
        {"baseline": str(first.public_id), "candidate": str(second.public_id)},
    )
    assert response.status_code == 200, response.content
    (row,) = response.json()["evaluators"]
    assert row["n_paired"] == 24


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"not json\n", "Line 1 is not JSON"),
        (b'["a list"]\n', "not a JSON object"),
        (b'{"entry_type": "init"}\n', "No scored attempts"),
    ],
)
def test_a_file_that_is_not_a_garak_report_is_refused(workspace, user, data, message):
    with pytest.raises(ValidationError) as raised:
        garak_scan_import(workspace=workspace, user=user, data=data)
    assert message in str(raised.value.message_dict["file"])
    assert not Experiment.objects.exists()


def run_job(public_id) -> GarakImport:
    """Run a queued garak import in this process, as the worker does (claim, then run)."""
    job = GarakImport.objects.get(public_id=public_id)
    return garak_import_run(job=garak_import_claim(job_id=job.pk))


def test_the_api_imports_a_scan_and_names_a_bad_file(api):
    upload = SimpleUploadedFile("run.report.jsonl", garak_file("random_detector"))
    response = api.post("/api/v1/experiments/import-garak/", {"file": upload}, format="multipart")
    assert response.status_code == 202, response.content
    job = response.json()
    assert (job["status"], job["probes_total"], job["probes_done"]) == ("queued", 1, 0)
    assert job["poll_url"].endswith(f"/api/v1/experiments/import-garak/{job['id']}/")
    assert not Experiment.objects.exists()  # the worker makes them
    run_job(job["id"])
    polled = api.get(job["poll_url"]).json()
    assert (polled["status"], polled["probes_done"], polled["percent"]) == ("completed", 1, 100)
    (made,) = polled["experiments"]
    assert made["probe_name"] == "test.Test" and made["status"] == "queued"
    bad = SimpleUploadedFile("x.jsonl", b"nope\n")
    refused = api.post("/api/v1/experiments/import-garak/", {"file": bad}, format="multipart")
    assert refused.status_code == 400 and "file" in refused.json()["error"]["details"]
    assert Experiment.objects.count() == 1 and GarakImport.objects.count() == 1


def test_the_page_imports_a_scan(web):
    page = web.get("/w/acme/experiments/import-garak/")
    assert page.status_code == 200 and 'id="garak-import-form"' in page.content.decode()
    upload = SimpleUploadedFile("run.report.jsonl", garak_file("fail_pass_detectors"))
    response = web.post("/w/acme/experiments/import-garak/", {"file": upload})
    job = GarakImport.objects.get()
    assert response.status_code == 302 and str(job.public_id) in response["Location"]
    queued = web.get(response["Location"]).content.decode()
    assert "0 of 1 probe imported" in queued and "hx-trigger" in queued
    run_job(job.public_id)
    done = web.get(response["Location"]).content.decode()
    made = Experiment.objects.get()
    assert "1 of 1 probe imported" in done and "hx-trigger" not in done
    assert f"/experiments/{made.public_id}/" in done
    bad = web.post("/w/acme/experiments/import-garak/", {"file": SimpleUploadedFile("x", b"[]")})
    assert bad.status_code == 400 and "not a JSON object" in bad.content.decode()


def test_a_viewer_cannot_import(client, member):
    client.force_login(member("vera", "viewer"))
    upload = SimpleUploadedFile("run.report.jsonl", garak_file("random_detector"))
    assert client.post("/w/acme/experiments/import-garak/", {"file": upload}).status_code == 403
    assert not Experiment.objects.exists()


def test_an_outsider_cannot_import_into_acme(client, outsider, outsider_api, workspace):
    client.force_login(outsider)
    upload = SimpleUploadedFile("run.report.jsonl", garak_file("random_detector"))
    assert client.get("/w/acme/experiments/import-garak/").status_code == 404
    assert client.post("/w/acme/experiments/import-garak/", {"file": upload}).status_code == 404
    assert not Experiment.objects.filter(workspace=workspace).exists()
    upload = SimpleUploadedFile("run.report.jsonl", garak_file("random_detector"))
    mine = outsider_api.post(
        "/api/v1/experiments/import-garak/", {"file": upload}, format="multipart"
    )
    assert mine.status_code == 202  # into the outsider's own workspace, never Acme's
    assert not Experiment.objects.filter(workspace=workspace).exists()


def synthetic_report(scores: list, threshold: float | None = None) -> bytes:
    """A minimal garak report: a setup entry and one scored attempt."""
    setup = {"entry_type": "start_run setup", "transient.run_id": "run-1", "run.seed": 1}
    if threshold is not None:
        setup["run.eval_threshold"] = threshold
    attempt = {
        "entry_type": "attempt",
        "uuid": "a-1",
        "seq": 0,
        "status": 2,
        "probe_classname": "test.TestProbe",
        "prompt": {"turns": [{"role": "user", "content": {"text": "test prompt"}}]},
        "outputs": [{"text": f"out{i}"} for i in range(len(scores))],
        "detector_results": {"det.A": scores},
        "goal": "test goal",
        "intent": None,
    }
    completion = {"entry_type": "completion", "run": "run-1"}
    return "\n".join(json.dumps(e) for e in (setup, attempt, completion)).encode()


def imported_counts(workspace, user, data):
    (run,) = garak_scan_import(workspace=workspace, user=user, data=data)
    run = engine.experiment_run_inline(experiment_id=run.pk)
    (record,) = entries("".join(export_stream(run, "report")), "eval")
    return record


@pytest.mark.parametrize("threshold", [0.25, 0.5, 0.75])
def test_the_threshold_edge(workspace, user, threshold):
    """test_evaluators.py::test_threshold_score_below_passes, ::test_threshold_score_at_
    threshold_fails and ::test_threshold_score_above_threshold_fails: a strict `<`."""
    scores = [threshold - 0.01, threshold, threshold + 0.01]
    record = imported_counts(workspace, user, synthetic_report(scores, threshold))
    assert (record["passed"], record["fails"], record["nones"]) == (1, 2, 0)
    assert "intents" not in record  # test_base.py: intents omitted when all are None


def test_nones_are_counted_apart(workspace, user):
    """test_evaluators.py::test_evaluate_with_nones."""
    record = imported_counts(workspace, user, synthetic_report([0.0, None, 0.8, None]))
    assert (record["passed"], record["fails"], record["nones"]) == (1, 1, 2)
    assert (record["total_evaluated"], record["total_processed"]) == (2, 4)


def test_zero_tolerance(workspace, user):
    """test_evaluators.py::test_zero_tolerance_test_method / ::test_zero_tolerance_evaluate:
    with a zero-tolerance policy only an exact 0.0 passes."""
    from experiments import services

    (run,) = garak_scan_import(
        workspace=workspace, user=user, data=synthetic_report([0.0, 0.001, 0.5, 1.0, 0.0])
    )
    binding = run.bindings.get()
    zero = services.experiment_create(
        workspace=workspace,
        user=user,
        name="zero tolerance",
        evalset_version=run.evalset_version,
        bindings=[
            {
                "evaluator_version": binding.evaluator_version,
                "mapping": binding.mapping,
                "policy": {"kind": "zero_tolerance"},
                "ext": binding.ext,
            }
        ],
        launch=True,
    )
    done = engine.experiment_run_inline(experiment_id=zero.pk)
    summary = done.aggregates.get().summary
    assert (summary["passed"], summary["fails"]) == (2, 3)
