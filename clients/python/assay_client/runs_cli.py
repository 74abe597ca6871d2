"""`assay evalset push`, `assay experiments list`, `assay results`, `assay baseline` and
`assay gate`: the commands around runs that `assay run` does not make."""

from __future__ import annotations

import json
import os
import sys
from itertools import islice
from pathlib import Path

import click

from .client import Client
from .display import console, experiments_table, github_errors
from .errors import EXIT_FAILED
from .gate import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_DROP,
    DEFAULT_MAX_UNKNOWN_RATE,
    DEFAULT_MIN_DECIDED,
    GateResult,
)

# -- evaluation sets -------------------------------------------------------------------------


@click.group()
def evalset() -> None:
    """Evaluation sets."""


@evalset.command("push")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="The set's name; created if no set has it.")
@click.option(
    "--version", help="The version to commit (default: one patch above the latest, or 1.0.0)."
)
@click.option("--note", default="", help="A note on the version.")
def evalset_push(file: Path, name: str, version: str | None, note: str) -> None:
    """Import a CSV or JSONL file as the set's rows and commit them as a version."""
    with Client() as client:
        try:
            committed = client.push_evalset(file, name, version, note=note)
        except ValueError as exc:  # the file's name or the version string, seen locally
            raise click.BadParameter(str(exc)) from None
    click.echo(
        f"Committed {name}@{committed['version']} ({committed['item_count']} rows), "
        f"version id {committed['id']}"
    )


# -- experiments -----------------------------------------------------------------------------


@click.group()
def experiments() -> None:
    """Experiments (runs)."""


@experiments.command("list")
@click.option(
    "--status",
    help="Only runs in this status (draft, queued, running, completed, failed, cancelled).",
)
@click.option("--evalset", help="Only runs on this set: NAME, NAME@VERSION or an id.")
@click.option(
    "--limit",
    default=50,
    show_default=True,
    type=click.IntRange(1),
    help="At most this many, newest first.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
def experiments_list(status: str | None, evalset: str | None, limit: int, as_json: bool) -> None:
    """The workspace's experiments, newest first."""
    with Client() as client:
        found = list(islice(client.experiments(status=status, evalset=evalset), limit))
    if as_json:
        click.echo(json.dumps(found, indent=2))
    elif not found:
        click.echo("No experiments.")
    else:
        console().print(experiments_table(found))


# -- results ---------------------------------------------------------------------------------


@click.command()
@click.argument("experiment_id")
@click.option(
    "--format",
    "file_format",
    type=click.Choice(["jsonl", "csv"]),
    default="jsonl",
    show_default=True,
)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file instead of stdout.",
)
def results(experiment_id: str, file_format: str, output: Path | None) -> None:
    """Stream a run's results (one line per row and evaluator)."""
    with Client() as client:
        chunks = client.export(experiment_id, file_format)
        if output is None:
            write_stdout(chunks)
        else:
            write_atomically(output, chunks)


def write_stdout(chunks) -> None:
    """The bytes as they come, to stdout (its binary side when it has one)."""
    binary = getattr(sys.stdout, "buffer", None)
    for chunk in chunks:
        if binary is not None:
            binary.write(chunk)
        else:
            sys.stdout.write(chunk.decode("utf-8", errors="replace"))
    sys.stdout.flush()
    if binary is not None:
        binary.flush()


def write_atomically(path: Path, chunks) -> None:
    """Write into a neighbour file and rename it, so a broken download leaves no half file."""
    partial = path.with_name(path.name + ".part")
    try:
        with partial.open("wb") as handle:
            for chunk in chunks:
                handle.write(chunk)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


# -- baselines and the gate ------------------------------------------------------------------


@click.command()
@click.argument("experiment_id")
@click.option("--unset", is_flag=True, help="Stop using the run as a baseline.")
def baseline(experiment_id: str, unset: bool) -> None:
    """Mark a completed run as a baseline (`assay gate --baseline latest` finds it)."""
    with Client() as client:
        experiment = client.mark_baseline(experiment_id, not unset)
    what = "no longer a baseline" if unset else "a baseline"
    click.echo(f"{experiment['name']} ({experiment['id']}) is {what}.")


@click.command()
@click.option(
    "--baseline",
    "baseline_ref",
    required=True,
    metavar="ID|latest",
    help="A run id, or 'latest': the newest baseline on the candidate's set.",
)
@click.option("--candidate", required=True, metavar="ID", help="The run to judge.")
@click.option(
    "--alpha",
    default=DEFAULT_ALPHA,
    show_default=True,
    type=float,
    help="Significance level of the one-sided tests (pass rate down, unknown rate up).",
)
@click.option(
    "--max-drop",
    default=DEFAULT_MAX_DROP,
    show_default=True,
    type=float,
    help="Pass-rate drop tolerated, as a share (0.02 = 2 points).",
)
@click.option(
    "--max-unknown-rate",
    default=DEFAULT_MAX_UNKNOWN_RATE,
    show_default=True,
    type=float,
    help="Fail when more of the candidate's rows than this share are unknown (1 = no cap).",
)
@click.option(
    "--min-decided",
    default=DEFAULT_MIN_DECIDED,
    show_default=True,
    type=int,
    help="Fail an evaluator with fewer rows decided (pass or fail) on both sides.",
)
@click.option(
    "--junit",
    "junit_path",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="Also write the decision as JUnit XML to this file (one test case per evaluator).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the API's answer as JSON instead of a table."
)
@click.option(
    "--record/--no-record",
    default=True,
    show_default=True,
    help="Record the decision on the server, whose gate.failed webhooks hear of a first "
    "failure (needs an editor's token); --no-record only reads (a viewer's token may).",
)
def gate(
    baseline_ref: str,
    candidate: str,
    alpha: float,
    max_drop: float,
    max_unknown_rate: float,
    min_decided: int,
    junit_path: Path | None,
    as_json: bool,
    record: bool,
) -> None:
    """Does the candidate regress against the baseline? Exits 1 when it does, when its unknown
    rate rose significantly or passed --max-unknown-rate, or when fewer than --min-decided
    rows were decided. The server records the decision (--no-record: it only reads), so the
    workspace's gate.failed webhooks hear of a check's first failure; posting it again tells
    nobody twice.

    Writes the Markdown summary to $GITHUB_STEP_SUMMARY when that is set, and prints a
    GitHub `::error` annotation for each failing evaluator (on stderr with --json)."""
    with Client() as client:
        decision = client.gate(
            baseline_ref,
            candidate,
            alpha=alpha,
            max_drop=max_drop,
            max_unknown_rate=max_unknown_rate,
            min_decided=min_decided,
            record=record,
        )
    _gate_reports(decision, junit_path)
    if as_json:
        click.echo(json.dumps(decision.to_dict(), indent=2))
    else:
        click.echo(decision.format(width=console().width), nl=False)
    for line in github_errors(decision.raw):
        click.echo(line, err=as_json)  # stdout stays pure JSON with --json
    if not decision.passed:
        sys.exit(EXIT_FAILED)


def _gate_reports(decision: GateResult, junit_path: Path | None) -> None:
    """The files a CI system reads: the step summary (GitHub) and JUnit XML (the others)."""
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(decision.markdown + "\n")
    if junit_path is not None:
        junit_path.write_text(decision.to_junit(), encoding="utf-8")
