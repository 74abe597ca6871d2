"""`assay import KIND FILE…`: another tool's files (OpenAI Evals, promptfoo, a Langfuse or
Phoenix dataset, an openai/evals registry eval) imported all or nothing, its report printed."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from .client import Client
from .errors import AssayError, AssayTimeout

# Each importer's files in the order bare paths fill them; NAME=PATH names any file.
FILE_ORDER = {
    "openai-evals": ("definition", "data"),
    "promptfoo": ("config", "tests"),
    "dataset": ("file",),
    "openai-evals-registry": ("spec", "samples"),
}


def _named_files(kind: str, paths: tuple[str, ...]) -> dict[str, Path]:
    """FILE arguments as {field: path}: NAME=PATH, or bare paths in the importer's order."""
    order, named = list(FILE_ORDER.get(kind, ())), {}
    for value in paths:
        name, equals, path = value.partition("=")
        if not equals:
            name, path = (order.pop(0) if order else ""), value
        if not name:
            raise click.BadParameter(f"say which file {value!r} is: NAME=PATH", param_hint="FILE")
        if name in order:
            order.remove(name)
        named[name] = Path(path)
    for name, path in named.items():
        if not path.is_file():
            raise click.BadParameter(f"{name}: no file {str(path)!r}", param_hint="FILE")
    return named


def _options(pairs: tuple[str, ...], text: str | None) -> dict:
    try:
        options = json.loads(text) if text else {}
    except ValueError:
        raise click.BadParameter("not JSON", param_hint="--options") from None
    if not isinstance(options, dict):
        raise click.BadParameter("give a JSON object", param_hint="--options")
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise click.BadParameter(f"give key=value, got {pair!r}", param_hint="--option")
        options[key] = value
    return options


def import_files(
    client: Client, kind: str, files: dict[str, Path], options: dict, *, timeout: float = 3600
):
    """POST the files to /imports/{kind}/: (the import, whether it is new). The same files
    again reuse the first import, so a retry after a lost answer is safe. Large files are
    imported by a worker (202): this waits for it, at most `timeout` seconds, and a failure is
    raised as the server's answer to a problem would be."""
    uploads = {name: (path.name, path.read_bytes()) for name, path in files.items()}
    response = client._send(
        "POST",
        f"imports/{kind}/",
        retry=True,
        data={"options": json.dumps(options)},
        files=uploads,
    )
    run = response.json()
    if run["status"] in WORKING:
        run = _waited(client, run, timeout)
    if run["status"] == "failed":
        raise AssayError(0, "import_failed", run.get("error") or "The import failed.")
    return run, response.status_code in (201, 202)


WORKING = ("queued", "running")


def _waited(client: Client, run: dict, timeout: float) -> dict:
    """The import once a worker has finished it (polled, more slowly as it goes on);
    AssayTimeout after `timeout` seconds (the import goes on on the server)."""
    deadline, delay = time.monotonic() + timeout, 0.3
    while run["status"] in WORKING:
        if time.monotonic() >= deadline:
            raise AssayTimeout(
                f"The import {run['id']} is still {run['status']} after {timeout:g} s; it goes "
                f"on on the server (GET /api/v1/imports/{run['id']}/)."
            )
        time.sleep(delay)
        delay = min(delay * 1.5, 3.0)
        run = client.request("GET", f"imports/{run['id']}/")
    return run


def report_lines(run: dict, new: bool) -> list[str]:
    """The report as lines for a terminal: each source, then what it made."""
    head = "imported" if new else "imported before (the same files): the first import"
    lines = [f"{run['kind']} {head} {run['id']}"]
    for line in run["report"].get("lines", []):
        if line.get("problem"):
            lines.append(f"  ✗ {line['source']}: {line['problem']}")
        else:
            lines.append(f"  ✓ {line['source']} → {line['became']}")
    for what, ids in run["report"].get("created", {}).items():
        lines.append(f"{what}: {', '.join(ids)}")
    return lines


@click.command("import")
@click.argument("kind")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option(
    "--option",
    "pairs",
    multiple=True,
    metavar="KEY=VALUE",
    help="An importer option, e.g. model=gpt-4o-mini (repeatable).",
)
@click.option("--options", "options_json", metavar="JSON", help="The importer's options as JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the import as JSON.")
@click.option(
    "--timeout",
    default=3600.0,
    show_default=True,
    type=click.FloatRange(0),
    help="Seconds to wait for a worker's import of large files.",
)
def import_command(
    kind: str, files: tuple[str, ...], pairs, options_json, as_json, timeout: float
) -> None:
    """Import another tool's files with the importer KIND (openai-evals, promptfoo, dataset,
    openai-evals-registry), all or nothing, and print what each source grader, assertion or column
    became. FILE is NAME=PATH, or a path filling the importer's files in order:
    openai-evals DEFINITION DATA; promptfoo CONFIG [TESTS]; dataset FILE; openai-evals-registry SPEC
    SAMPLES. A problem is one line naming the file and place; the exit code is then 2."""
    named = _named_files(kind, files)
    options = _options(pairs, options_json)
    with Client(timeout=300.0) as client:
        run, new = import_files(client, kind, named, options, timeout=timeout)
    if as_json:
        click.echo(json.dumps(run, ensure_ascii=False, indent=2))
        return
    for line in report_lines(run, new):
        click.echo(line)
