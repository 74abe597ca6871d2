"""garak's reference files uploaded to a workspace: a calibration (garak/data/calibration/*.json:
probe/detector → mu, sigma) rates runs whose names match with garak's own Z; a detector-metrics
file (detector_metrics_summary.json: Se/Sp) corrects those detectors' intervals."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from experiments import scoring as engine
from experiments.models import GarakReference
from experiments.results.console import garak_lines, garak_rows
from experiments.services.garak import garak_scan_import
from experiments.services.garak_references import garak_reference_upload
from experiments.stats.bootstrap import bootstrap_ci

pytestmark = pytest.mark.django_db

REPORT = (
    Path(__file__).resolve().parent.parent / "fixtures" / "garak" / "random_detector.report.jsonl"
)
# the shapes garak ships (values made up for the test)
CALIBRATION = {
    "garak_calibration_meta": {"date": "2026-02-01", "filenames": ["a.report.jsonl"]},
    "test.Test/always.Random": {"mu": 0.5, "sigma": 0.1, "sw_p": 0.2},
    "dan.Dan_11_0/dan.DAN": {"mu": 0.2, "sigma": 0.01, "sw_p": 0.5},
}
METRICS = {
    "results": {
        "always.Random": {"metrics": {"hit_sensitivity": 0.9, "hit_specificity": 0.8}},
        "dan.DAN": {"metrics": {"hit_sensitivity": 1.0, "hit_specificity": 0.75}},
    }
}


def upload(api, payload, name="calibration.json"):
    file = SimpleUploadedFile(name, json.dumps(payload).encode())
    return api.post("/api/v1/experiments/garak-references/", {"file": file}, format="multipart")


def scan(workspace, user):
    (run,) = garak_scan_import(workspace=workspace, user=user, data=REPORT.read_bytes())
    return engine.experiment_run_inline(experiment_id=run.pk)


def test_a_calibration_rates_matching_runs_with_garaks_z(api, workspace, user):
    created = upload(api, CALIBRATION)
    assert created.status_code == 201, created.content
    assert created.json()["kind"] == "calibration" and created.json()["entries"] == 2
    run = scan(workspace, user)
    (row,) = garak_rows(run)
    assert row.z == pytest.approx((17 / 40 - 0.5) / 0.1)  # garak: (1 − ASR − mu) / sigma
    (line,) = garak_lines([row], color=False)
    assert line.endswith("    🟧 Z: -0.8")  # DEFCON 2: −1 ≤ z < −0.125
    card_standing = run.aggregates.get().binding
    from experiments.results.standing import relative_standing

    standing = relative_standing(binding=card_standing, pass_rate=17 / 40)
    assert standing["source"] == "garak calibration" and standing["level"] == "below"


def test_detector_metrics_correct_the_interval_as_garak_would(api, workspace, user):
    assert upload(api, METRICS, "detector_metrics_summary.json").json()["kind"] == (
        "detector_metrics"
    )
    run = scan(workspace, user)
    summary = run.aggregates.get().summary
    assert summary["calibration"]["source"] == "garak detector metrics"
    expected = bootstrap_ci(
        23, 17, sensitivity=0.9, specificity=0.8, seed=42, exact_garak=True
    )  # garak's procedure with Se/Sp, which garak itself never loads
    assert summary["fail_rate_ci"] == list(expected)
    assert summary["fail_rate_ci"] != list(bootstrap_ci(23, 17, seed=42, exact_garak=True))


def test_the_newest_file_of_a_kind_is_used(workspace, user):
    garak_reference_upload(workspace=workspace, name="old", data=json.dumps(CALIBRATION).encode())
    newer = {**CALIBRATION, "test.Test/always.Random": {"mu": 0.425, "sigma": 0.2}}
    garak_reference_upload(workspace=workspace, name="new", data=json.dumps(newer).encode())
    (row,) = garak_rows(scan(workspace, user))
    assert row.z == pytest.approx(0.0)


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"not json", "not JSON"),
        (json.dumps({"x": 1}).encode(), "Neither a garak calibration"),
        (json.dumps([1, 2]).encode(), "Neither a garak calibration"),
    ],
)
def test_a_file_of_another_shape_is_refused(api, payload, message):
    file = SimpleUploadedFile("x.json", payload)
    response = api.post("/api/v1/experiments/garak-references/", {"file": file}, format="multipart")
    assert response.status_code == 400 and message in str(response.json()["error"]["details"])
    assert not GarakReference.objects.exists()


def test_references_stay_in_their_workspace(api, outsider_api, workspace, user):
    upload(api, CALIBRATION)
    assert outsider_api.get("/api/v1/experiments/garak-references/").json() == []
    assert len(api.get("/api/v1/experiments/garak-references/").json()) == 1


def test_the_import_page_stores_a_reference_file(web):
    file = SimpleUploadedFile("calibration-2026-02.json", json.dumps(CALIBRATION).encode())
    response = web.post("/w/acme/experiments/import-garak/", {"reference": file})
    assert response.status_code == 302
    page = web.get("/w/acme/experiments/import-garak/").content.decode()
    assert "calibration-2026-02.json" in page and 'id="garak-references"' in page
    bad = SimpleUploadedFile("x.json", b"{}")
    refused = web.post("/w/acme/experiments/import-garak/", {"reference": bad})
    assert refused.status_code == 400 and "Neither a garak calibration" in refused.content.decode()
