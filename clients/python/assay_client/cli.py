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
from pathlib import Path

import click
from rich.text import Text

from . import __version__
from .client import Client
from .config import save_config
from .display import (
    console,
    github_run_error,
    run_table,
)
from .errors import EXIT_ERROR, EXIT_FAILED, AssayError, AssayTimeout
from .import_cli import import_command
from .results import DEFAULT_MAX_TASK_ERRORS, TaskErrorLimit
from .runner import run_template
from .runs_cli import baseline, evalset, experiments, gate, results
from .traces_cli import traces

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


for command in (traces, import_command, evalset, experiments, results, baseline, gate):
    main.add_command(command)
