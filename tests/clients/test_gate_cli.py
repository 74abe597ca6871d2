"""`assay gate` as CI runs it: the installed command in a process of its own against a live
server and a real worker. Its exit code is 1 on a real regression and on a run that decided
nothing, 0 on noise; its JUnit XML is what GitLab and Jenkins read; its text states the
defaults it decided with, with one minus sign; `GateResult.format()` is that same text."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from assay_client import Client, GateResult
from assay_client import gate as client_gate
from assay_client.cli import main
from click.testing import CliRunner

from experiments.results import gate as server_gate
from tests.support.factories import make_evalset_version
from tests.support.gate_runs import COLUMNS, pairs, verdict_reader

pytestmark = pytest.mark.django_db(transaction=True)

ASSAY = Path(sys.executable).parent / "assay"


@pytest.fixture
def verdict_pairs(workspace, user, client):
    """A function (base, cand, name) -> (baseline id, candidate id): an evalset of verdict
    columns, and two runs of Reader@2.0.0 on it created through the API and scored by the
    worker."""
    verdict_reader(workspace=workspace, user=user)

    def build(base, cand, name):
        rows = [{"base": b, "cand": c} for b, c in zip(base, cand, strict=True)]
        make_evalset_version(workspace=workspace, user=user, rows=rows, columns=COLUMNS, name=name)
        return tuple(_scored_run(client, name, side) for side in ("base", "cand"))

    return build


def _scored_run(client: Client, name: str, side: str) -> str:
    binding = {"evaluator_version": "Reader@2.0.0", "mapping": {"v": f"column:{side}"}}
    made = client.create_experiment(
        name=f"{name} {side}", evalset_version=f"{name}@1.0.0", bindings=[binding]
    )
    assert client.wait(made["id"], timeout=120)["status"] == "completed"
    return made["id"]


def installed_gate(env: dict, *args: str) -> subprocess.CompletedProcess:
    """The `assay` script pip installed, run as a CI step runs it."""
    return subprocess.run(
        [str(ASSAY), "gate", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_the_installed_command_exits_1_on_a_regression_and_0_on_noise(
    assay_env, verdict_pairs, tmp_path
):
    env = {**os.environ, **assay_env}
    env.pop("GITHUB_STEP_SUMMARY", None)
    noise = verdict_pairs(*pairs(down=5, up=4), name="Noise")
    regression = verdict_pairs(*pairs(down=25, up=2), name="Regression")
    nothing = verdict_pairs(pairs()[0], ["unknown"] * 200, name="Nothing")

    passed = installed_gate(env, "--baseline", noise[0], "--candidate", noise[1])
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout.startswith("Assay gate passed: Noise cand against Noise base (")

    failed = installed_gate(env, "--baseline", regression[0], "--candidate", regression[1])
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Reader: pass rate dropped 11.5 pts (p < 0.001;" in failed.stdout
    assert "::error title=Assay gate%3A Reader::pass rate dropped 11.5 pts" in failed.stdout

    # the candidate's task raised on every row: nothing decided, with the default options
    undecided = installed_gate(env, "--baseline", nothing[0], "--candidate", nothing[1])
    assert undecided.returncode == 1, undecided.stdout + undecided.stderr
    assert "unknown rate 100.0% above 50.0%" in undecided.stdout
    assert "only 0 rows decided on both sides, fewer than 30" in undecided.stdout

    # JUnit XML, read as a CI system reads it
    report = tmp_path / "gate.xml"
    junit = installed_gate(
        env, "--baseline", regression[0], "--candidate", regression[1], "--junit", str(report)
    )
    assert junit.returncode == 1
    suites = ET.parse(report).getroot()
    assert suites.tag == "testsuites" and suites.get("failures") == "1"
    [suite] = suites.findall("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("1", "1", "0")
    [case] = suite.findall("testcase")
    assert (case.get("classname"), case.get("name")) == ("assay_gate", "Reader")
    failure = case.find("failure")
    assert failure.get("message").startswith("pass rate dropped 11.5 pts (p < 0.001;")
    assert failure.text.startswith("Reader: pass rate dropped 11.5 pts")
    numbers = case.find("system-out").text
    assert "decided 200 rows; pass rate " in numbers and "(\u221211.5 pts, CI [" in numbers
    assert "25 pass->fail, 2 fail->pass, p (worse) < 0.001;" in numbers and "e-" not in numbers


def test_the_text_states_the_defaults_with_one_minus_sign(assay_env, verdict_pairs):
    baseline, candidate = verdict_pairs(*pairs(down=25, up=2), name="Signs")
    result = CliRunner().invoke(main, ["gate", "--baseline", baseline, "--candidate", candidate])
    assert result.exit_code == 1, result.output
    heading = result.stdout.splitlines()[0]
    assert heading == (
        "Assay gate FAILED: Signs cand against Signs base (alpha 0.05, max drop 0 pts, "
        "max unknown rate 50.0%, min decided 30 rows)"
    )
    [row] = [line for line in result.stdout.splitlines() if "Reader" in line and "│" in line]
    assert "\u221211.5 pts" in row and "-11.5" not in row
    assert "p < 0.001" not in row and "< 0.001" in row  # the table's p, never "1e-06"
    assert "below 0.0 pts" in result.stdout and "\u22120.0" not in result.stdout
    assert "e-0" not in result.stdout


def test_result_format_is_what_the_command_prints(assay_env, client, verdict_pairs):
    baseline, candidate = verdict_pairs(*pairs(down=25, up=2), name="Format")
    decision = client.gate(baseline, candidate)
    assert isinstance(decision, GateResult) and decision.passed is False
    assert decision["passed"] is False and decision["min_decided"] == 30  # the JSON's keys too
    printed = CliRunner().invoke(main, ["gate", "--baseline", baseline, "--candidate", candidate])
    annotations = "".join(line + "\n" for line in printed.stdout.splitlines() if "::error" in line)
    assert printed.stdout == decision.format() + annotations
    assert decision.failures == [f"Reader: {decision.evaluators[0]['reasons'][0]}"]
    assert decision.format().count("Reader") == 2  # its table row and its reason


def test_the_junit_report_of_a_passing_gate_and_of_evaluators_on_one_side(
    assay_env, client, verdict_pairs, tmp_path
):
    baseline, candidate = verdict_pairs(*pairs(down=5, up=4), name="Junit")
    report = tmp_path / "nested" / "gate.xml"
    report.parent.mkdir()
    ran = CliRunner().invoke(
        main, ["gate", "--baseline", baseline, "--candidate", candidate, "--junit", str(report)]
    )
    assert ran.exit_code == 0, ran.output
    suites = ET.fromstring(report.read_bytes())
    [suite] = suites
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("1", "0", "0")
    [case] = suite.iter("testcase")
    assert case.find("failure") is None and case.get("name") == "Reader"
    options = suite.find("properties/property[@name='options']").get("value")
    assert options == "alpha 0.05, max drop 0 pts, max unknown rate 50.0%, min decided 30 rows"
    assert suite.find("system-out").text.startswith("Assay gate passed: Junit cand")

    # a run whose evaluator the baseline lacks: a skipped case, and the gate's own failure
    gated = client.gate(baseline, candidate).raw
    only_here = {**gated, "evaluators": [], "not_compared": ["Reader", "Polite <b>"]}
    only_here.update(passed=False, reasons=["no evaluator ran in both runs"])
    parsed = ET.fromstring(GateResult.from_api(only_here).to_junit())
    [suite] = parsed
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "2")
    names = [(c.get("name"), c.find("skipped") is not None) for c in suite.iter("testcase")]
    assert names == [("Reader", True), ("Polite <b>", True), ("gate", False)]


def test_the_client_and_the_server_have_the_same_defaults(assay_env, client, verdict_pairs):
    pairs_of_defaults = {
        "alpha": (client_gate.DEFAULT_ALPHA, server_gate.DEFAULT_ALPHA),
        "max_drop": (client_gate.DEFAULT_MAX_DROP, server_gate.DEFAULT_MAX_DROP),
        "max_unknown_rate": (
            client_gate.DEFAULT_MAX_UNKNOWN_RATE,
            server_gate.DEFAULT_MAX_UNKNOWN_RATE,
        ),
        "min_decided": (client_gate.DEFAULT_MIN_DECIDED, server_gate.DEFAULT_MIN_DECIDED),
    }
    for name, (ours, theirs) in pairs_of_defaults.items():
        assert ours == theirs, name
    baseline, candidate = verdict_pairs(*pairs(n=40), name="Defaults")
    stated = client.gate(baseline, candidate).raw
    assert {name: stated[name] for name in pairs_of_defaults} == {
        "alpha": 0.05,
        "max_drop": 0.0,
        "max_unknown_rate": 0.5,
        "min_decided": 30,
    }
    uncapped = client.gate(baseline, candidate, max_unknown_rate=None)  # None: no cap, as before
    assert uncapped.passed is True and uncapped["max_unknown_rate"] == 1.0
    lowered = client.gate(baseline, candidate, min_decided=50, max_unknown_rate=1)
    assert lowered.passed is False and lowered.raw["min_decided"] == 50
    assert "max unknown rate 100.0%, min decided 50 rows" in lowered.format()


def test_the_docs_and_the_help_state_the_defaults():
    """README's CI part and both jobs of docs/ci.md spell out the defaults the code has."""
    root = Path(__file__).resolve().parents[2]
    stated = (
        f"--max-unknown-rate {client_gate.DEFAULT_MAX_UNKNOWN_RATE:g} "
        f"--min-decided {client_gate.DEFAULT_MIN_DECIDED}"
    )
    ci = " ".join((root / "docs" / "ci.md").read_text().split())
    assert ci.count(f"--max-drop 0.02 {stated}") == 2  # the GitHub job and the GitLab job
    assert "reports: junit: assay-gate.xml" in ci and "--junit assay-gate.xml" in ci
    readme = " ".join((root / "README.md").read_text().split())
    assert f"--alpha {client_gate.DEFAULT_ALPHA:g} --max-drop 0 {stated}" in readme
    helped = " ".join(CliRunner().invoke(main, ["gate", "--help"]).stdout.split())
    for option, default in (
        ("--max-unknown-rate", client_gate.DEFAULT_MAX_UNKNOWN_RATE),
        ("--min-decided", client_gate.DEFAULT_MIN_DECIDED),
        ("--alpha", client_gate.DEFAULT_ALPHA),
    ):
        assert re.search(rf"{option} \S+ .*?\[default: {default:g}\]", helped), option
