"""What the CLI prints: rich tables of runs, experiments and gate decisions, and the GitHub
workflow commands of a failed gate. Names come from users, so every cell is plain `Text`
(never rich markup)."""

from __future__ import annotations

import io
import os
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .results import ExperimentResult

WIDE = 200
MINUS = "\u2212"  # the one minus sign of every printed number (never a hyphen)


def console(*, stderr: bool = False) -> Console:
    """A console on stdout (or stderr). Off a terminal (CI logs, pipes) rich would assume 80
    columns and squeeze ids; there the width is generous unless COLUMNS says otherwise."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() or os.environ.get("COLUMNS") else WIDE
    return Console(file=stream, width=width, highlight=False)


def rate(value: float | None) -> str:
    """A share as a percentage, "—" when there is none."""
    return "—" if value is None else f"{100 * value:.1f}%"


def points(value: float | None) -> str:
    """A difference of rates in signed percentage points, its minus U+2212; what rounds to
    zero prints without a sign ("0.0 pts", never "−0.0")."""
    if value is None:
        return "—"
    shown = f"{abs(100 * value):.1f}"
    if shown == "0.0":
        return "0.0 pts"
    return f"{'+' if value > 0 else MINUS}{shown} pts"


def p_value(value: float) -> str:
    """A p-value: "< 0.001" below that (an exponent would print a hyphen for its minus)."""
    return "< 0.001" if value < 0.001 else f"{value:.3g}"


def interval(bounds, show=rate) -> str:
    return "—" if not bounds else f"[{show(bounds[0])}, {show(bounds[1])}]"


def run_table(result: ExperimentResult) -> Table:
    """One line per evaluator of a finished run."""
    table = Table()
    for column in ("evaluator", "version", "pass rate", "95% CI", "pass", "fail", "unknown"):
        table.add_column(column, justify="left" if column in ("evaluator", "version") else "right")
    table.add_column("mean score", justify="right")
    for row in result.evaluators:
        table.add_row(
            Text(row.name),
            Text(row.version),
            rate(row.pass_rate),
            interval(row.pass_rate_ci),
            str(row.passed),
            str(row.fails),
            str(row.nones),
            "—" if row.mean is None else f"{row.mean:.3f}",
        )
    return table


def experiments_table(experiments: list[dict]) -> Table:
    """The experiments list: id, name, status, evalset version, progress, baseline mark."""
    table = Table()
    for column in ("id", "name", "status", "evalset", "results", "baseline", "created"):
        table.add_column(column, no_wrap=column in ("id", "created"))
    for experiment in experiments:
        evalset = f"{experiment.get('evalset_name', '')}@{experiment.get('evalset_version_string')}"
        done, total = experiment.get("results_done", 0), experiment.get("results_total", 0)
        table.add_row(
            experiment["id"],
            Text(experiment.get("name", "")),
            experiment.get("status", ""),
            Text(evalset),
            f"{done}/{total}",
            "yes" if experiment.get("is_baseline") else "",
            (experiment.get("created_at") or "")[:19].replace("T", " "),
        )
    return table


def gate_heading(gate: dict) -> str:
    """ "Assay gate passed: <candidate> against <baseline> (<the options it decided with>)"."""
    verdict = "passed" if gate.get("passed") else "FAILED"
    return (
        f"Assay gate {verdict}: {gate['candidate']['name']} against "
        f"{gate['baseline']['name']} ({gate_limits(gate)})"
    )


def gate_limits(gate: dict) -> str:
    """The options the gate decided with, defaults included, as the server's summary says."""
    limits = f"alpha {gate['alpha']:g}, max drop {100 * gate['max_drop']:g} pts"
    if gate.get("max_unknown_rate") is not None:
        limits += f", max unknown rate {rate(gate['max_unknown_rate'])}"
    if gate.get("min_decided") is not None:
        limits += f", min decided {gate['min_decided']} rows"
    return limits


def gate_reasons(gate: dict) -> list[str]:
    """The gate's own reasons, then "<evaluator>: <why it failed>" per failing evaluator."""
    return list(gate.get("reasons") or []) + [
        f"{row['evaluator']}: {'; '.join(row['reasons'])}"
        for row in gate.get("evaluators", [])
        if row["failed"]
    ]


GATE_COLUMNS = (
    "evaluator",
    "decided",
    "baseline",
    "candidate",
    "Δ pass rate",
    "CI",
    "p (worse)",
    "unknown",
    "p (more unknown)",
)


def gate_table(gate: dict) -> Table:
    """One line per evaluator the gate compared, with its decision."""
    table = Table()
    for column in GATE_COLUMNS:
        table.add_column(column, justify="left" if column == "evaluator" else "right")
    table.add_column("result")
    for row in gate.get("evaluators", []):
        table.add_row(*_gate_cells(row))
    return table


def _gate_cells(row: dict) -> list:
    unknown = rate(row["unknown_rate"])
    if "unknown_rate_baseline" in row:  # a server from before the unknown test has no such key
        unknown = f"{rate(row['unknown_rate_baseline'])} → {unknown}"
    more_unknown = row.get("p_more_unknown")
    return [
        Text(row["evaluator"]),
        str(row.get("n_decided", "—")),
        rate(row["pass_rate_baseline"]),
        rate(row["pass_rate_candidate"]),
        points(row["pass_rate_delta"]),
        interval(row["pass_rate_delta_ci"], points),
        p_value(row["p_worse"]),
        unknown,
        "—" if more_unknown is None else p_value(more_unknown),
        Text("fail", style="red") if row["failed"] else Text("pass", style="green"),
    ]


def gate_text(gate: dict, *, width: int = WIDE) -> str:
    """The gate as plain text: the heading, the table, the reasons and what was not compared
    (what `assay gate` prints and `GateResult.format()` returns)."""
    out = Console(file=io.StringIO(), width=width, highlight=False, color_system=None)
    out.print(Text(gate_heading(gate)))
    out.print(gate_table(gate))
    for line in gate_reasons(gate):
        out.print(Text(line))
    if gate.get("not_compared"):
        out.print(Text(f"Not compared (on one side only): {', '.join(gate['not_compared'])}"))
    return out.file.getvalue()


def github_errors(gate: dict) -> list[str]:
    """A GitHub Actions `::error` workflow command per failing evaluator (shown as an
    annotation on the run; a plain log line anywhere else)."""
    lines = [
        f"::error title={_escape_property('Assay gate')}::{_escape_data(reason)}"
        for reason in gate.get("reasons") or []
    ]
    for row in gate.get("evaluators", []):
        if row["failed"]:
            title = _escape_property(f"Assay gate: {row['evaluator']}")
            message = _escape_data("; ".join(row["reasons"]))
            lines.append(f"::error title={title}::{message}")
    return lines


def github_run_error(message: str) -> str:
    """The `::error` workflow command of a run that failed on its own account (task errors)."""
    return f"::error title={_escape_property('Assay run')}::{_escape_data(message)}"


def _escape_data(text: str) -> str:
    """Workflow-command data: %, CR and LF are encoded so one message stays one command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow-command property also encodes the separators ':' and ','."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
