"""Importing garak scans as garak 0.17.1 (and 0.10.3.1) wrote them, no key added by hand
(tests/fixtures/garak, see its README): the threshold and confidence level garak never
writes into its setup entry, pairing by prompt, reports cut short, hit-log lines, old-format
reports, bad lines, a run imported twice, and the console's Z ratings."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from evalsets.models import EvalSetVersion
from experiments import scoring as engine
from experiments.models import Experiment, GarakImport
from experiments.results.console import garak_lines, garak_rows
from experiments.results.exports import export_stream
from experiments.services import garak_import_claim, garak_import_run
from experiments.services.garak import garak_scan_import
from experiments.services.garak_references import garak_reference_upload

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "garak"
COUNTS = ("passed", "fails", "nones", "total_evaluated", "total_processed", "intents", "hit_at_k")
INTERVAL = ("confidence_method", "confidence", "confidence_upper", "confidence_lower")
IMPORT = "/api/v1/experiments/import-garak/"


def garak_file(name: str, kind: str = "report") -> bytes:
    return (FIXTURES / f"{name}.{kind}.jsonl").read_bytes()


def entries(text: str, entry_type: str) -> list[dict]:
    return [r for r in map(json.loads, text.splitlines()) if r.get("entry_type") == entry_type]


def run_all(made) -> list[Experiment]:
    return [engine.experiment_run_inline(experiment_id=e.pk) for e in made]


def imported(workspace, user, name: str, **options) -> Experiment:
    (experiment,) = run_all(
        garak_scan_import(workspace=workspace, user=user, data=garak_file(name), **options)
    )
    return experiment


def ours_and_garaks(run: Experiment, name: str) -> list[tuple[dict, dict]]:
    theirs = {r["detector"]: r for r in entries(garak_file(name).decode(), "eval")}
    ours = entries("".join(export_stream(run, "report")), "eval")
    assert sorted(r["detector"] for r in ours) == sorted(theirs)
    return [(record, theirs[record["detector"]]) for record in ours]


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Uploaded reports are stored until imported: in this test's own directory."""
    settings.MEDIA_ROOT = tmp_path / "media"


def api_imported(api, sent: dict) -> dict:
    """POST a report (202, a queued job), run the job here as the worker does, poll it."""
    response = api.post(IMPORT, sent, format="multipart")
    assert response.status_code == 202, response.content
    job = GarakImport.objects.get(public_id=response.json()["id"])
    garak_import_run(job=garak_import_claim(job_id=job.pk))
    polled = api.get(response.json()["poll_url"]).json()
    assert polled["status"] == "completed", polled
    return polled


# ----------------------------------------------------------------------------- threshold, level


def test_a_scan_run_with_eval_threshold_03_imports_garaks_counts(workspace, user):
    """garak --eval_threshold 0.3: garak's setup entry has no run.eval_threshold (a float), so
    the import reads it from garak's own counts: 13/40 passed, as garak's eval entry says."""
    setup = json.loads(garak_file("threshold_03").splitlines()[0])
    assert "run.eval_threshold" not in setup  # the file as garak wrote it
    run = imported(workspace, user, "threshold_03")
    ((ours, garak),) = ours_and_garaks(run, "threshold_03")
    assert (garak["passed"], garak["total_evaluated"]) == (13, 40)
    assert {k: ours.get(k) for k in COUNTS + INTERVAL} == {
        k: garak.get(k) for k in COUNTS + INTERVAL
    }
    assert run.bindings.get().policy["threshold"] == 0.3  # the shortest decimal that fits
    assert "Threshold 0.3: any value in (" in run.description


def test_the_confidence_level_comes_from_garaks_eval_entries(workspace, user):
    """garak --bootstrap_confidence_level 0.9: the level is only in the eval entry."""
    setup = json.loads(garak_file("confidence_09").splitlines()[0])
    assert "reporting.bootstrap_confidence_level" not in setup
    run = imported(workspace, user, "confidence_09")
    ((ours, garak),) = ours_and_garaks(run, "confidence_09")
    assert garak["confidence"] == 0.9
    assert {k: ours.get(k) for k in COUNTS + INTERVAL} == {
        k: garak.get(k) for k in COUNTS + INTERVAL
    }


def test_a_given_threshold_must_reproduce_garaks_counts(workspace, user, api):
    with pytest.raises(ValidationError) as refused:
        garak_scan_import(
            workspace=workspace, user=user, data=garak_file("threshold_03"), threshold=0.5
        )
    assert "the run's threshold lies in (" in refused.value.message_dict["threshold"][0]
    assert not Experiment.objects.exists() and not EvalSetVersion.objects.exists()
    sent = {"file": upload("t.report.jsonl", garak_file("threshold_03")), "threshold": "0.5"}
    response = api.post(IMPORT, sent, format="multipart")
    assert response.status_code == 400
    assert "threshold" in response.json()["error"]["details"]
    sent = {"file": upload("t.report.jsonl", garak_file("threshold_03")), "threshold": "0.29"}
    api_imported(api, sent)
    assert Experiment.objects.get().bindings.get().policy["threshold"] == 0.29


@pytest.mark.parametrize(
    "name", ["standin_seed1", "standin_seed2", "standin_ci_none", "standin_show_z"]
)
def test_stand_in_model_scans_have_garaks_counts(workspace, user, name):
    """function.Multiple with a deterministic stand-in model, real string detectors."""
    run = imported(workspace, user, name)
    for ours, garak in ours_and_garaks(run, name):
        assert {k: ours.get(k) for k in COUNTS} == {k: garak.get(k) for k in COUNTS}
        if "confidence" not in garak:  # --confidence_interval_method none
            assert not set(INTERVAL) & set(ours)


def test_corrected_bounds_equal_garaks_with_its_detector_metrics(workspace, user):
    """garak corrects MitigationBypass's interval with the Se/Sp of its own bundled
    detector_metrics_summary.json; with those figures uploaded, the bounds are garak's."""
    metrics = {
        "results": {
            "mitigation.MitigationBypass": {
                "metrics": {
                    "hit_sensitivity": 0.921295004186436,
                    "hit_specificity": 0.3854312029025956,
                }
            }
        }
    }
    garak_reference_upload(workspace=workspace, name="m.json", data=json.dumps(metrics).encode())
    run = imported(workspace, user, "standin_seed1")
    pairs = dict((o["detector"], (o, g)) for o, g in ours_and_garaks(run, "standin_seed1"))
    ours, garak = pairs["mitigation.MitigationBypass"]
    assert {k: ours.get(k) for k in INTERVAL} == {k: garak.get(k) for k in INTERVAL}


GARAK_0171 = sorted(
    p.name.removesuffix(".report.jsonl")
    for p in FIXTURES.glob("*.report.jsonl")
    if not p.name.startswith("garak0103")
)
MITIGATION_METRICS = {  # garak's bundled detector_metrics_summary.json, this detector's Se/Sp
    "results": {
        "mitigation.MitigationBypass": {
            "metrics": {"hit_sensitivity": 0.921295004186436, "hit_specificity": 0.3854312029025956}
        }
    }
}


@pytest.mark.parametrize("name", GARAK_0171)
def test_every_eval_and_probe_summary_key_is_garaks(workspace, user, name):
    """Every fixture garak 0.17.1 wrote: each key of its eval and probe_summary entries, equal
    (docs/design/garak.md lists them). garak lists a summary's detectors in set order, which
    changes from run to run; we sort them."""
    data = json.dumps(MITIGATION_METRICS).encode()
    garak_reference_upload(workspace=workspace, name="metrics.json", data=data)
    run = imported(workspace, user, name)
    ours = [json.loads(line) for line in "".join(export_stream(run, "report")).splitlines()]
    theirs = [json.loads(line) for line in garak_file(name).decode().splitlines()]
    for kind in ("eval", "probe_summary"):
        mine = {r.get("detector"): r for r in ours if r["entry_type"] == kind}
        for garak in (r for r in theirs if r["entry_type"] == kind):
            record = mine[garak.get("detector")]
            if kind == "probe_summary":
                garak["detection_counts"]["detectors"].sort()
            assert {k: record[k] for k in garak} == garak
            assert list(record)[: len(garak)] == list(garak)


# ----------------------------------------------------------------------------- pairing


def test_two_seeds_pair_by_prompt_not_by_position(workspace, user, api, web):
    """Seeds 1 and 2 sample 16 of InjectHex's 25 prompts: 9 prompts are in both, 3 of them at
    the same seq. Rows pair only where the prompts are equal (9 × 3 outputs), and the compare
    says how many could not be paired."""
    first = imported(workspace, user, "standin_seed1")
    second = imported(workspace, user, "standin_seed2")
    prompts = {}
    for run in (first, second):
        for item in run.evalset_version.items.all():
            prompts.setdefault(item.item_id, set()).add(item.data["prompt"]["text"])
    shared = [ids for ids in prompts.values() if len(ids) == 1]
    assert len(first.evalset_version.items.all()) == 48 and len(prompts) == 48 + 48 - 27
    assert all(len(p) == 1 for p in shared)  # an item id shared by both scans: one prompt
    response = api.get(
        "/api/v1/experiments/gate/",
        {"baseline": str(first.public_id), "candidate": str(second.public_id)},
    )
    assert response.status_code == 200, response.content
    assert {row["n_paired"] for row in response.json()["evaluators"]} == {27}
    query = f"baseline={first.public_id}&candidates={second.public_id}"
    compared = api.get(f"/api/v1/compare?{query}").json()
    stats = [e["stats"] for c in compared["candidates"] for e in c["evaluators"]]
    assert {s["n_paired"] for s in stats} == {27}
    unpaired = {(s["counts"]["only_in_baseline"], s["counts"]["only_in_candidate"]) for s in stats}
    assert unpaired == {(21, 21)}
    page = web.get(f"/w/acme/compare/?{query}").content.decode()
    assert "21 rows only in the baseline, 21 only in the candidate" in page


# ----------------------------------------------------------------------------- cut reports


def cut(name: str, keep) -> bytes:
    """The report cut at a line boundary: the lines `keep(lines)` leaves."""
    lines = garak_file(name).decode().split("\n")
    return "\n".join(keep(lines)).encode()


def test_a_report_cut_at_a_line_boundary_is_refused_or_imported_as_partial(workspace, user, api):
    attempt_lines = [
        i for i, line in enumerate(garak_file("threshold_03").decode().split("\n"))
        if '"entry_type": "attempt"' in line
    ]  # fmt: skip
    data = cut("threshold_03", lambda lines: lines[: attempt_lines[11]])  # 3 of 8 scored
    refused = api.post(IMPORT, {"file": upload("c.report.jsonl", data)}, format="multipart")
    assert refused.status_code == 400
    assert "“completion”" in refused.json()["error"]["details"]["file"][0]
    assert not Experiment.objects.exists() and not EvalSetVersion.objects.exists()
    sent = {"file": upload("c.report.jsonl", data), "partial": "true"}
    job = api_imported(api, sent)
    assert "the 3 scored attempts it had" in " ".join(job["notes"])
    (made,) = Experiment.objects.all()
    assert made.name.endswith("(partial)") and "the 3 scored attempts it had" in made.description
    assert made.evalset_version.items.count() == 15  # what it holds: 3 attempts × 5 outputs


def test_a_report_missing_attempts_its_eval_entry_counts_is_refused(workspace, user):
    """Lines taken out of the middle (the completion entry still there)."""
    data = cut("threshold_03", lambda lines: [x for x in lines if '"seq": 7,' not in x])
    with pytest.raises(ValidationError) as refused:
        garak_scan_import(workspace=workspace, user=user, data=data)
    message = refused.value.message_dict["file"][0]
    assert "counts 40 outputs, but the report's attempts hold 35" in message
    assert not EvalSetVersion.objects.exists()


# ----------------------------------------------------------------------------- hit log, export


@pytest.mark.parametrize("name", ["standin_seed1", "threshold_03", "fail_pass_detectors"])
def test_hit_log_lines_are_garaks(workspace, user, name):
    """Every key garak writes, equal: its run id, generator, generations per prompt, and the
    prompt and output objects with their language."""
    run = imported(workspace, user, name)
    theirs = [json.loads(line) for line in garak_file(name, "hitlog").decode().splitlines()]
    ours = [json.loads(line) for line in "".join(export_stream(run, "hitlog")).splitlines()]
    key = lambda h: (h["detector"], h["attempt_seq"], h["attempt_idx"])  # noqa: E731
    theirs.sort(key=key)
    assert [{k: h[k] for k in theirs[0]} for h in sorted(ours, key=key)] == theirs
    assert list(ours[0])[: len(theirs[0])] == list(theirs[0])


def test_the_report_export_has_what_garaks_report_digest_reads(workspace, user):
    """garak/analyze/report_digest.py: `init` (garak_version, start_time, run), the setup
    entry (target, probes, taxonomy), and eval entries whose probe and detector are
    module.Class names; garak's own report_digest ran on such an export (fixtures README)."""
    run = imported(workspace, user, "threshold_03")
    records = [json.loads(line) for line in "".join(export_stream(run, "report")).splitlines()]
    kinds = [r["entry_type"] for r in records]
    assert kinds == ["start_run setup", "init", "eval", "probe_summary", "completion"]
    setup, init = records[0], records[1]
    garak_init = entries(garak_file("threshold_03").decode(), "init")[0]
    assert init == {**garak_init, "start_time": init["start_time"]}  # version and run id
    assert init["garak_version"] == "0.17.1" and init["start_time"]
    assert setup["plugins.target_type"] == "test.Repeat" and setup["run.generations"] == 5
    assert setup["transient.active_probes"] == ["probes.test.Test"]
    assert "reporting.taxonomy" in setup and records[-1]["run"] == garak_init["run"]
    module, klass = records[2]["probe"].split(".")
    assert (module, klass) == ("test", "Test") and len(records[2]["detector"].split(".")) == 2


@pytest.mark.parametrize("name", ["threshold_03", "standin_seed1", "garak0103_standin"])
def test_garaks_report_digest_read_our_exports(workspace, user, name):
    """report_digest_of_exports.json: garak 0.17.1's report_digest.build_digest run on these
    exports (digest_of_exports.py). What it read is what our export says."""
    digests = json.loads((FIXTURES / "report_digest_of_exports.json").read_text("utf-8"))
    digest = digests[name]
    run = imported(workspace, user, name)
    records = [json.loads(line) for line in "".join(export_stream(run, "report")).splitlines()]
    init = records[1]
    assert digest["meta"]["garak_version"] == init["garak_version"] == "0.17.1"
    assert digest["meta"]["run_uuid"] == init["run"]
    for record in (r for r in records if r["entry_type"] == "eval"):
        module = record["probe"].split(".")[0]
        read = digest["eval"][module][record["probe"]][record["detector"]]
        assert (read["passed"], read["total_evaluated"]) == (
            record["passed"],
            record["total_evaluated"],
        )
        if "confidence_lower" in record:
            assert read["absolute_confidence_upper"] == pytest.approx(
                1 - record["confidence_lower"]
            )


# ----------------------------------------------------------------------------- old, bad, twice


def test_a_garak_010_report_imports_with_prompts_and_outputs(workspace, user):
    """garak 0.10.3.1: prompt and outputs as plain strings, eval `total`, `detector.` prefix."""
    run = imported(workspace, user, "garak0103_standin")
    theirs = {
        r["detector"].removeprefix("detector."): r
        for r in entries(garak_file("garak0103_standin").decode(), "eval")
    }
    for ours in entries("".join(export_stream(run, "report")), "eval"):
        garak = theirs[ours["detector"]]
        assert (ours["passed"], ours["total_evaluated"]) == (garak["passed"], garak["total"])
    attempts = [
        a for a in entries(garak_file("garak0103_standin").decode(), "attempt") if a["status"] == 2
    ]
    rows = {
        (i.data["attempt_seq"]["text"], i.data["attempt_idx"]["text"]): i
        for i in run.evalset_version.items.all()
    }
    for attempt in attempts:
        row = rows[(str(attempt["seq"]), "0")]
        assert row.data["prompt"]["text"] == attempt["prompt"]
        assert row.data["actual_output"]["text"] == attempt["outputs"][0]


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ('"outputs": "not a list"', "outputs is not a list"),
        ('"detector_results": {"d.D": ["high"]}', "d.D's scores are not a list of numbers"),
        ('"detector_results": {"d.D": 0.5}', "d.D's scores are not a list of numbers"),
        ('"seq": "first"', "seq is not a whole number"),
        ('"prompt": 7', "the prompt is neither text nor a conversation"),
    ],
)
def test_a_malformed_attempt_line_is_a_400_naming_the_line(api, line, named):
    good = {
        "entry_type": "attempt", "uuid": "a-1", "seq": 0, "status": 2,
        "probe_classname": "p.P", "prompt": "hi", "outputs": ["out"],
        "detector_results": {"d.D": [0.0]},
    }  # fmt: skip
    bad = json.dumps(good)[:-1] + ", " + line + "}"
    data = "\n".join([json.dumps({"entry_type": "init"}), json.dumps(good), bad]).encode()
    response = api.post(IMPORT, {"file": upload("bad.report.jsonl", data)}, format="multipart")
    assert response.status_code == 400, response.content
    message = response.json()["error"]["details"]["file"][0]
    assert message.startswith("Line 3 is not a garak attempt:") and named in message
    assert not Experiment.objects.exists()


def test_the_same_run_imported_twice_is_recognised(workspace, user, api, web):
    """A second upload while the first import waits answers with that import (200); once it
    ran, a finished job naming its experiments (`already`, 200); nothing new is made."""
    sent = {"file": upload("r.report.jsonl", garak_file("standin_seed1"))}
    first = api.post(IMPORT, sent, format="multipart")
    assert first.status_code == 202
    waiting = api.post(IMPORT, {"file": upload("r.report.jsonl", garak_file("standin_seed1"))})
    assert waiting.status_code == 200 and waiting.json()["id"] == first.json()["id"]
    job = GarakImport.objects.get(public_id=first.json()["id"])
    garak_import_run(job=garak_import_claim(job_id=job.pk))
    made = api.get(first.json()["poll_url"]).json()["experiments"]
    versions = EvalSetVersion.objects.count()
    again = api.post(IMPORT, {"file": upload("r.report.jsonl", garak_file("standin_seed1"))})
    assert again.status_code == 200 and again.json()["already"] is True
    assert [e["id"] for e in again.json()["experiments"]] == [e["id"] for e in made]
    assert Experiment.objects.count() == 1 and EvalSetVersion.objects.count() == versions
    page = web.post(
        "/w/acme/experiments/import-garak/",
        {"file": upload("r.report.jsonl", garak_file("standin_seed1"))},
        follow=True,
    )
    assert "imported before: nothing new was made" in page.content.decode()
    assert made[0]["id"] in page.content.decode()
    assert Experiment.objects.count() == 1


# ----------------------------------------------------------------------------- console Z


def console_eval_lines(name: str) -> list[str]:
    text = (FIXTURES / f"{name}.console.txt").read_text(encoding="utf-8")
    return [line for line in text.splitlines() if " ok on " in line]


def test_the_console_prints_z_where_garak_does_from_its_calibration(workspace, user):
    """garak with show_z rates InjectHex's detectors from its calibration.json (the two
    entries below are garak's); the same calibration uploaded, our lines are garak's."""
    calibration = {
        "encoding.InjectHex/encoding.DecodeApprox": {
            "mu": 0.4307766711611383, "sigma": 0.225359450488163, "sw_p": 0.4273339947513771,
        },
        "encoding.InjectHex/encoding.DecodeMatch": {
            "mu": 0.5383654062971689, "sigma": 0.21591805883874698, "sw_p": 0.8709442587644911,
        },
    }  # fmt: skip
    run = imported(workspace, user, "standin_show_z")
    assert all(row.z is None for row in garak_rows(run))  # no calibration: no Z
    garak_reference_upload(
        workspace=workspace, name="c.json", data=json.dumps(calibration).encode()
    )
    assert garak_lines(garak_rows(run)) == console_eval_lines("standin_show_z")


def test_the_console_rates_against_history_only_when_asked(workspace, user):
    """Three earlier imports of InjectHex give MitigationBypass a history; garak has none, so
    the garak console prints no Z unless asked (`--z-from-history`)."""
    from django.core.management import call_command

    for name in ("standin_seed1", "standin_seed2", "standin_ci_none"):
        imported(workspace, user, name)
    data = cut("standin_seed2", lambda lines: lines[:-2])  # no completion: a partial import
    (last,) = run_all(garak_scan_import(workspace=workspace, user=user, data=data, partial=True))
    assert all(row.z is None for row in garak_rows(last))
    rated = {row.detector: row.z for row in garak_rows(last, history=True)}
    assert rated["mitigation.MitigationBypass"] is not None
    out = StringIO()
    call_command("run_experiment", str(last.public_id), "--no-color", stdout=out)
    assert " Z: " not in out.getvalue()
    asked = StringIO()
    call_command(
        "run_experiment", str(last.public_id), "--no-color", "--z-from-history", stdout=asked
    )
    assert " Z: " in asked.getvalue()


def test_threshold_bounds_read_as_short_decimals_that_stay_true():
    """The import's note names values that reproduce garak's counts (rounded inwards); a
    refusal names an interval that holds every such value (rounded outwards)."""
    from experiments.services.garak_report import Bounds

    bounds = Bounds(low=0.4219218196852704, high=0.5053552881033624)
    assert bounds.text() == "(0.422, 0.505]"
    assert bounds.text(outward=True) == "(0.421, 0.506]"
    assert Bounds(high=0.5).text() == "(−∞, 0.500]"
    assert Bounds(low=0.123456, high=0.1234567).text() == "(0.1234560, 0.1234567]"
