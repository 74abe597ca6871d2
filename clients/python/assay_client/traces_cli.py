"""`assay traces …`: production traces (sent by OpenTelemetry exporters) into evaluation sets."""

from __future__ import annotations

import json

import click

from .client import Client


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    """`key=value` options as a dict; a value without `=` is a usage error naming it."""
    found = {}
    for value in values:
        key, equals, wanted = value.partition("=")
        if not equals or not key.strip():
            raise click.BadParameter(f"give key=value, got {value!r}", param_hint=option)
        found[key.strip()] = wanted
    return found


@click.group()
def traces() -> None:
    """Production traces."""


@traces.command("to-evalset")
@click.option(
    "--evalset", required=True, metavar="NAME|ID", help="The set whose draft takes the rows."
)
@click.option("--trace", "trace_ids", multiple=True, metavar="ID", help="A trace id (repeatable).")
@click.option("--span", "span_ids", multiple=True, metavar="ID", help="A span id (repeatable).")
@click.option(
    "--session",
    "session_ids",
    multiple=True,
    metavar="ID",
    help="A session: one conversation row (repeatable).",
)
@click.option(
    "--filter",
    "filters",
    multiple=True,
    metavar="KEY=VALUE",
    help="A filter of the trace list, e.g. service=shop or range=24h (repeatable).",
)
@click.option(
    "--map",
    "mapping",
    multiple=True,
    metavar="COLUMN=FIELD",
    help="Which span field fills a column: input, output, messages, input_messages, "
    "trajectory, model, name, service, error, session_id, user_id (default: by column names).",
)
@click.option(
    "--per",
    "row_from",
    type=click.Choice(["root", "llm"]),
    default="root",
    show_default=True,
    help="One row per trace (its root span) or per LLM span.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the API's answer as JSON.")
def to_evalset(evalset, trace_ids, span_ids, session_ids, filters, mapping, row_from, as_json):
    """Add traces to an evaluation set's draft; duplicates (same content) are skipped."""
    given = [bool(trace_ids), bool(span_ids), bool(session_ids), bool(filters)]
    if sum(given) != 1:
        raise click.UsageError("Give --trace, --span, --session or --filter (one kind of them).")
    with Client() as client:
        report = client.traces_to_evalset(
            evalset,
            trace_ids=trace_ids,
            span_ids=span_ids,
            session_ids=session_ids,
            filters=_pairs(filters, "--filter"),
            mapping=_pairs(mapping, "--map"),
            row_from=row_from,
        )
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    click.echo(
        f"{report['added']} rows added to the draft of {evalset}, "
        f"{report['skipped_duplicates']} duplicates skipped"
        + (f", {report['empty']} spans with none of the mapped fields" if report["empty"] else "")
    )
    click.echo("mapping: " + ", ".join(f"{c} <- {f}" for c, f in report["mapping"].items()))
