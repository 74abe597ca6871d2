"""Where the CLI's server and token come from (`assay login`, the environment), and what a
user sees when something is wrong: one line naming the problem, exit code 2, no traceback."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from assay_client import AssayError
from assay_client.cli import main
from click.testing import CliRunner

pytestmark = pytest.mark.django_db(transaction=True)

NOWHERE = "http://127.0.0.1:9"  # the discard port: nothing listens there


def assay(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def failed(result, *expected: str) -> str:
    """The one error line of a command that must exit 2."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    for text in expected:
        assert text in result.stderr
    return result.stderr


def test_login_saves_a_private_config_that_later_commands_use(
    server, token, clean_env, monkeypatch
):
    logged_in = assay("login", "--url", server + "/", "--token", token)
    assert logged_in.exit_code == 0, logged_in.output
    assert f"Logged in to {server}, workspace 'Acme'" in logged_in.stdout
    assert stat.S_IMODE(clean_env.stat().st_mode) == 0o600
    assert json.loads(clean_env.read_text()) == {"url": server, "token": token}

    listed = assay("experiments", "list")
    assert listed.exit_code == 0, listed.output
    assert listed.stdout == "No experiments.\n"

    # the saved token belongs to the saved server: another URL does not get it
    monkeypatch.setenv("ASSAY_URL", NOWHERE)
    failed(assay("experiments", "list"), f"No API token for {NOWHERE}: set ASSAY_TOKEN")


def test_login_with_a_wrong_token_saves_nothing(server, clean_env):
    failed(
        assay("login", "--url", server, "--token", "not-a-token"),
        "Invalid or revoked API token.",
        "HTTP 401",
    )
    assert not clean_env.exists()


def test_no_token_anywhere_is_one_clear_line(clean_env, monkeypatch):
    monkeypatch.setenv("ASSAY_URL", NOWHERE)
    line = failed(assay("baseline", "0b8a4c36-7d3e-4a47-9b7f-1d4c2b1a0e55"))
    assert line == f"Error: No API token for {NOWHERE}: set ASSAY_TOKEN or run `assay login`\n"
    monkeypatch.delenv("ASSAY_URL")
    failed(assay("experiments", "list"), "No Assay URL: set ASSAY_URL or run `assay login`")


def test_an_unreachable_server_is_one_clear_line(clean_env, monkeypatch):
    monkeypatch.setenv("ASSAY_URL", NOWHERE)
    monkeypatch.setenv("ASSAY_TOKEN", "whatever")
    failed(assay("experiments", "list"), f"Error: Cannot reach {NOWHERE}: ConnectError")


def test_api_errors_name_the_field(assay_env, client, words, contains, tmp_path):
    failed(
        assay("experiments", "list", "--status", "bogus"),
        "status: Unknown status 'bogus'.",
        "(HTTP 400 invalid)",
    )
    failed(
        assay("gate", "--baseline", "latest", "--candidate", "not-an-id"),
        "candidate: Must be a valid UUID.",
    )
    unknown = ("--evalset", "Words@1.0.0", "--evaluator", "Nope@1.0.0")
    failed(assay("run", "--task", "json:dumps", *unknown), "bindings[0]")
    source = tmp_path / "rows.csv"
    source.write_text("input,reference_output\nsay w1,w1\n")
    failed(
        assay("evalset", "push", str(source), "--name", "Words", "--version", "banana"),
        "version",
    )

    source.write_text("input,reference_output\nsay w1,w1\nsay w2,\n")  # a required cell empty
    failed(
        assay("evalset", "push", str(source), "--name", "Words"),
        "Nothing was imported",
        "line 3, reference_output: this column is required and the cell is empty",
    )

    # the Python client carries the same details
    with pytest.raises(AssayError) as raised:
        client.create_experiment(
            name="x",
            evalset_version="Words@1.0.0",
            bindings=[{"evaluator_version": "Contains@1.0.0"}],
            repetitions=99,
        )
    assert raised.value.status == 400 and "repetitions" in raised.value.details


def test_the_installed_command_runs_from_a_shell(server, token, clean_env):
    """The `assay` script pip installed, in a process of its own, configured by the
    environment alone."""
    command = Path(sys.executable).parent / "assay"
    env = {**os.environ, "ASSAY_URL": server, "ASSAY_TOKEN": token}
    listed = subprocess.run(
        [str(command), "experiments", "list"], env=env, capture_output=True, text=True, timeout=60
    )
    assert (listed.returncode, listed.stdout, listed.stderr) == (0, "No experiments.\n", "")
    env["ASSAY_TOKEN"] = "asy_revoked"
    refused = subprocess.run(
        [str(command), "experiments", "list"], env=env, capture_output=True, text=True, timeout=60
    )
    assert refused.returncode == 2
    assert (
        refused.stderr == "Error: Invalid or revoked API token. (HTTP 401 authentication_failed)\n"
    )
