"""What the CLI prints: rich tables of runs, experiments and gate decisions, and the GitHub
workflow commands of a failed gate. Names come from users, so every cell is plain `Text`
(never rich markup)."""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .results import ExperimentResult

WIDE = 200


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
    """A difference of rates in signed percentage points."""
    return "—" if value is None else f"{100 * value:+.1f} pts"


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
    """ "Assay gate passed: <candidate> against <baseline> (alpha, max drop)"."""
    verdict = "passed" if gate.get("passed") else "FAILED"
    limits = f"alpha {gate['alpha']:g}, max drop {100 * gate['max_drop']:g} pts"
    if gate.get("max_unknown_rate") is not None:
        limits += f", max unknown rate {rate(gate['max_unknown_rate'])}"
    return (
        f"Assay gate {verdict}: {gate['candidate']['name']} against "
        f"{gate['baseline']['name']} ({limits})"
    )


def gate_reasons(gate: dict) -> list[str]:
    """ "<evaluator>: <why it failed>" for each failing evaluator."""
    return [
        f"{row['evaluator']}: {'; '.join(row['reasons'])}"
        for row in gate.get("evaluators", [])
        if row["failed"]
    ]


def gate_table(gate: dict) -> Table:
    """One line per evaluator the gate compared, with its decision."""
    table = Table()
    columns = ("evaluator", "baseline", "candidate", "Δ pass rate", "CI", "p (worse)", "unknown")
    for column in columns:
        table.add_column(column, justify="left" if column == "evaluator" else "right")
    table.add_column("result")
    for row in gate.get("evaluators", []):
        result = Text("fail", style="red") if row["failed"] else Text("pass", style="green")
        table.add_row(
            Text(row["evaluator"]),
            rate(row["pass_rate_baseline"]),
            rate(row["pass_rate_candidate"]),
            points(row["pass_rate_delta"]),
            interval(row["pass_rate_delta_ci"], points),
            f"{row['p_worse']:.3g}",
            rate(row["unknown_rate"]),
            result,
        )
    return table


def github_errors(gate: dict) -> list[str]:
    """A GitHub Actions `::error` workflow command per failing evaluator (shown as an
    annotation on the run; a plain log line anywhere else)."""
    lines = []
    for row in gate.get("evaluators", []):
        if row["failed"]:
            title = _escape_property(f"Assay gate: {row['evaluator']}")
            message = _escape_data("; ".join(row["reasons"]))
            lines.append(f"::error title={title}::{message}")
    return lines


def _escape_data(text: str) -> str:
    """Workflow-command data: %, CR and LF are encoded so one message stays one command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow-command property also encodes the separators ':' and ','."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
