"""The `assay` command line: run your code against an evaluation set, push sets, list runs,
export results, mark baselines and gate a candidate in CI.

Exit codes: 0 success; 1 the run did not complete or had more task errors than
--max-task-errors allows, or the gate failed; 2 a usage error, a
missing configuration or an error answer of the API (printed as one line, never a traceback).
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from itertools import islice
from pathlib import Path

import click
from rich.text import Text

from . import __version__
from .client import Client
from .config import save_config
from .display import (
    console,
    experiments_table,
    github_errors,
    github_run_error,
    run_table,
)
from .errors import AssayError, AssayTimeout
from .gate import (
    DEFAULT_ALPHA,
    DEFAULT_MAX_DROP,
    DEFAULT_MAX_UNKNOWN_RATE,
    DEFAULT_MIN_DECIDED,
    GateResult,
)
from .import_cli import import_command
from .results import DEFAULT_MAX_TASK_ERRORS, TaskErrorLimit
from .runner import run_template
from .traces_cli import traces

EXIT_FAILED = 1
EXIT_ERROR = 2
DEBUG_ENV = "ASSAY_DEBUG"


class AssayGroup(click.Group):
    """Turns an `AssayError` (and any other unexpected error) into one line on stderr and
    exit code 2; `ASSAY_DEBUG=1` lets the traceback through for a bug report."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except AssayError as exc:
            raise Failure(exc.one_line()) from None
        except (click.exceptions.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as exc:
            if os.environ.get(DEBUG_ENV):
                raise
            raise Failure(f"unexpected {type(exc).__name__}: {exc}") from None


class Failure(click.ClickException):
    """An error the user can act on: "Error: …" on stderr, exit 2."""

    exit_code = EXIT_ERROR


@click.group("assay", cls=AssayGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="assay")
def main() -> None:
    """Assay from a shell or a CI job. The server and token come from ASSAY_URL and
    ASSAY_TOKEN, or from the file `assay login` writes."""


# -- login -----------------------------------------------------------------------------------


@main.command()
@click.option(
    "--url",
    envvar="ASSAY_URL",
    prompt="Assay URL",
    help="The server, e.g. https://assay.example.com",
)
@click.option(
    "--token", envvar="ASSAY_TOKEN", prompt="API token", hide_input=True, help="An API token."
)
def login(url: str, token: str) -> None:
    """Check an API token against the server and save both (readable by you only)."""
    with Client(url=url, token=token) as client:
        workspace = client.workspace_info()
        saved = save_config(url=client.url, token=token)
    click.echo(f"Logged in to {client.url}, workspace {workspace.get('name')!r}; saved {saved}")


# -- run -------------------------------------------------------------------------------------


class ErrorLimitType(click.ParamType):
    """--max-task-errors: a count (10) or a share of the calls (5%)."""

    name = "limit"

    def convert(self, value, param, ctx) -> TaskErrorLimit:
        try:
            return TaskErrorLimit.parse(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


@main.command()
@click.option(
    "--task",
    "task_ref",
    metavar="MODULE:FUNCTION",
    help="Your code: called with each row, returns the output.",
)
@click.option(
    "--template",
    metavar="NAME",
    help="Launch an experiment template (its name or id) instead: its evalset, target and "
    "evaluators; --task only when its outputs come from your code.",
)
@click.option(
    "--evalset",
    metavar="NAME@VERSION",
    help="The evaluation set version (or its id).",
)
@click.option(
    "--rows",
    "rows_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Instead of --evalset: a CSV or JSONL file of rows. The same rows reuse the version "
    "they made; changed rows make the set's next version.",
)
@click.option(
    "--evalset-name",
    metavar="NAME",
    help="The set the --rows file goes to (default: the file's name without its extension).",
)
@click.option(
    "--evaluator",
    "evaluators",
    multiple=True,
    metavar="NAME@VERSION",
    help="An evaluator version (or its id); repeat for several.",
)
@click.option(
    "--concurrency",
    default=16,
    show_default=True,
    type=click.IntRange(1),
    help="Calls of the task at once.",
)
@click.option("--name", help="The experiment's name (default: '<module:function> on <evalset>').")
@click.option(
    "--repetitions", default=1, show_default=True, type=click.IntRange(1), help="Calls per row."
)
@click.option(
    "--timeout",
    type=click.FloatRange(0, min_open=True),
    help="Seconds to wait for scoring once outputs are in.",
)
@click.option(
    "--max-task-errors",
    default=DEFAULT_MAX_TASK_ERRORS,
    show_default=True,
    type=ErrorLimitType(),
    metavar="N|N%",
    help="Task errors (calls of the task that raised or gave no output) tolerated: a count "
    "(10) or a share of the calls (5%). More fail the run (exit 1).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the result as JSON instead of a table."
)
def run(
    task_ref: str | None,
    template: str | None,
    evalset: str | None,
    rows_file: Path | None,
    evalset_name: str | None,
    evaluators: tuple[str, ...],
    concurrency: int,
    name: str | None,
    repetitions: int,
    timeout: float | None,
    max_task_errors: TaskErrorLimit,
    as_json: bool,
) -> None:
    """Run your task on every row of an evaluation set (--evalset, or a file of rows with
    --rows) and score it with the evaluators; or launch an experiment template (--template).

    The module is imported from the current directory. Exits 1 if the run did not complete,
    or if more calls of the task failed than --max-task-errors allows (the first are printed).
    """
    if template is not None:
        _check_template(evalset, rows_file, evaluators, name)
    else:
        _check_source(evalset, rows_file, evalset_name)
        _check_task(task_ref, evaluators)
    task = load_task(task_ref) if task_ref else None
    created: list[dict] = []

    def on_created(experiment: dict) -> None:
        created.append(experiment)
        announce(experiment)

    options = {"task": task, "concurrency": concurrency, "timeout": timeout, "progress": True}
    with Client() as client:
        try:
            if template is not None:
                result = run_template(client, template, on_created=on_created, **options)
            else:
                label = evalset
                if rows_file is not None:
                    evalset, label = rows_version(client, rows_file, evalset_name)
                result = client.run_experiment(
                    evalset=evalset,
                    evaluators=list(evaluators),
                    name=name or default_run_name(task_ref, label),
                    repetitions=repetitions,
                    on_created=on_created,
                    **options,
                )
        except AssayTimeout as exc:
            click.echo(f"Error: {exc.message}", err=True)
            sys.exit(EXIT_FAILED)
        except KeyboardInterrupt:
            done = "the experiment was cancelled" if created else "no experiment was created"
            click.echo(f"Interrupted: {done}.", err=True)
            sys.exit(EXIT_FAILED)
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        out = console()
        out.print(Text(f"{result.name}: {result.status}"))
        out.print(run_table(result))
        out.print(Text(f"experiment {result.id}" + (f"  {result.url}" if result.url else "")))
    github_output("task_errors", str(result.task_errors))
    failed = not report_task_errors(result, max_task_errors)
    if not result.completed:
        why = f": {result.error_message}" if result.error_message else ""
        click.echo(f"Error: the run is {result.status}{why}", err=True)
        failed = True
    if failed:
        sys.exit(EXIT_FAILED)


def _check_source(evalset: str | None, rows_file: Path | None, evalset_name: str | None) -> None:
    if (evalset is None) == (rows_file is None):
        raise click.UsageError("Give --evalset NAME@VERSION or --rows FILE (one of them).")
    if evalset_name is not None and rows_file is None:
        raise click.UsageError("--evalset-name names the set of a --rows file.")


def _check_task(task_ref: str | None, evaluators: tuple[str, ...]) -> None:
    if not task_ref:
        raise click.UsageError("Give --task MODULE:FUNCTION (or launch a --template).")
    if not evaluators:
        raise click.UsageError("Give at least one --evaluator NAME@VERSION.")


def _check_template(evalset, rows_file, evaluators, name) -> None:
    """A template brings its own evalset, evaluators and name pattern."""
    given = [
        flag
        for flag, value in (
            ("--evalset", evalset),
            ("--rows", rows_file),
            ("--evaluator", evaluators),
            ("--name", name),
        )
        if value
    ]
    if given:
        raise click.UsageError(f"--template brings its own set-up; drop {', '.join(given)}.")


def rows_version(client: Client, rows_file: Path, evalset_name: str | None) -> tuple[str, str]:
    """Upload the rows file; say which version it is (new, or the same rows' version) and
    return its id and "name@version"."""
    version = client.evalset_version_from_rows(rows_file, name=evalset_name)
    ref = f"{version['evalset_name']}@{version['version']}"
    how = "a new version" if version["created"] else "the version these rows made before"
    click.echo(f"rows {rows_file.name}: {ref} ({how}, {version['item_count']} rows)", err=True)
    return version["id"], ref


def report_task_errors(result, limit: TaskErrorLimit) -> bool:
    """Print how many calls of the task failed and the first of them (on stderr, so stdout
    stays the result); False when more failed than `limit` allows."""
    if not result.task_errors:
        return True
    share = result.task_errors / result.task_calls if result.task_calls else 1.0
    click.echo(
        f"Task errors: {result.task_errors:,} of {result.task_calls:,} calls of the task "
        f"failed ({100 * share:.1f}%); the first {len(result.first_task_errors)}:",
        err=True,
    )
    for error in result.first_task_errors:
        click.echo(f"  {error_place(error)}: {one_line(error.message)}", err=True)
    if limit.allows(result.task_errors, result.task_calls):
        click.echo(f"(within --max-task-errors {limit})", err=True)
        return True
    why = f"{result.task_errors:,} task errors are more than --max-task-errors {limit} allows"
    click.echo(f"Error: {why}; the scores above leave those rows unknown.", err=True)
    first = result.first_task_errors[0]
    annotation = f"{why}; the first: {error_place(first)}: {first.message}"
    click.echo(github_run_error(one_line(annotation)), err=True)
    return False


def error_place(error) -> str:
    """ "row N" (", repetition R" after the first) of a task error."""
    where = f"row {error.row}" if error.row is not None else f"item {error.item_id}"
    return where + (f", repetition {error.repeat + 1}" if error.repeat else "")


def one_line(text: str, limit: int = 300) -> str:
    """An error message on one line, cut to `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def announce(experiment: dict) -> None:
    """As soon as the run exists: its id on stderr, and for GitHub Actions' later steps
    `experiment_id` in $GITHUB_OUTPUT (also when the run then fails)."""
    click.echo(f"experiment {experiment['id']} ({experiment['name']})", err=True)
    github_output("experiment_id", experiment["id"])


def load_task(ref: str) -> Callable:
    """`module:function` (the function may be `Class.method`-style dotted), imported with the
    current directory first on the path, as `python -m` would."""
    module_name, _, attribute = ref.partition(":")
    if not module_name or not attribute:
        raise click.BadParameter("give it as module:function", param_hint="--task")
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        target = importlib.import_module(module_name)
    except Exception as exc:  # the user's module: any error in it is theirs to see
        raise click.BadParameter(
            f"cannot import {module_name!r}: {type(exc).__name__}: {exc}", param_hint="--task"
        ) from None
    for part in attribute.split("."):
        target = getattr(target, part, None)
        if target is None:
            raise click.BadParameter(f"{module_name} has no {attribute!r}", param_hint="--task")
    if not callable(target):
        raise click.BadParameter(f"{ref} is not a function", param_hint="--task")
    return target


def default_run_name(task_ref: str, evalset: str) -> str:
    """ "<module:function> on <evalset>" (a rows file's version: "on <name>@<version>")."""
    return f"{task_ref} on {evalset}"[:160]


def github_output(key: str, value: str) -> None:
    """In GitHub Actions, `key=value` for later steps (`steps.<id>.outputs.<key>`)."""
    path = os.environ.get("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(f"{key}={value}\n")


main.add_command(traces)
main.add_command(import_command)


# -- evaluation sets -------------------------------------------------------------------------


@main.group()
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


@main.group()
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


@main.command()
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


@main.command()
@click.argument("experiment_id")
@click.option("--unset", is_flag=True, help="Stop using the run as a baseline.")
def baseline(experiment_id: str, unset: bool) -> None:
    """Mark a completed run as a baseline (`assay gate --baseline latest` finds it)."""
    with Client() as client:
        experiment = client.mark_baseline(experiment_id, not unset)
    what = "no longer a baseline" if unset else "a baseline"
    click.echo(f"{experiment['name']} ({experiment['id']}) is {what}.")


@main.command()
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
