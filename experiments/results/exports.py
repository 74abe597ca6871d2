"""Streamed exports of an experiment: results as CSV / JSONL, and garak's report and hit log
(`experiments/results/garak/`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

import orjson

from assay.safety.csvcells import FORMULA_STARTS, buffer_drain, csv_safe

from ..models import Experiment
from ..scoring.turns import TurnRebuilder
from .garak import hitlog_jsonl, report_jsonl
from .streaming import (
    TURN_PARTS,
    chunked,
    dumps,
    json_list,
    result_rows,
    target_parts,
    uuid_text,
)

CSV_FIELDS = [
    "item_id",
    "position",
    "repeat",
    "tags",
    "evaluator",
    "evaluator_version",
    "turn",
    "status",
    "verdict",
    "evaluator_verdict",
    "human_verdict",
    "score",
    "reason",
    "error",
    "stdout",
    "latency_ms",
    "tokens_in",
    "tokens_out",
    "cost",
    "correction_note",
    # the target's row (of the same item and repetition): empty without a target
    "target_status",
    "target_latency_ms",
    "target_tokens_in",
    "target_tokens_out",
    "target_cost",
    "input",
]
FORMATS = ("csv", "jsonl", "report", "hitlog")


def export_stream(experiment: Experiment, fmt: str) -> Iterator[str]:
    """The chosen export as an iterator of text chunks (for StreamingHttpResponse / files)."""
    return {
        "csv": results_csv,
        "jsonl": results_jsonl,
        "report": report_jsonl,
        "hitlog": hitlog_jsonl,
    }[fmt](experiment)


def export_filename(experiment: Experiment, fmt: str) -> str:
    suffix = {
        "csv": "results.csv",
        "jsonl": "results.jsonl",
        "report": "report.jsonl",
        "hitlog": "hitlog.jsonl",
    }[fmt]
    if fmt in ("report", "hitlog"):  # garak names them <run>.report.jsonl / <run>.hitlog.jsonl
        return f"assay.{experiment.public_id}.{suffix}"
    return f"experiment-{experiment.public_id}-{suffix}"


# Rows per chunk handed to the response: one write per row costs more than the row itself.
ROWS_PER_CHUNK = 500


# The columns an export writes, read as tuples (JSON and UUIDs as text: no model instances,
# no timestamps to convert); the parts of each result's turn follow them.
FIELDS = (
    "binding", "item_uid", "position", "repeat", "tags", "status", "verdict", "human_verdict",
    "human_score", "score", "reason", "error", "stdout", "latency_ms", "tokens_in", "tokens_out",
    "cost", "correction_note", "item", "turn",
)  # fmt: skip
ORDER = ("position", "repeat", "binding", "turn")
# What the target's row adds (its status comes with the turn's parts).
TARGET_USAGE = ("latency_ms", "tokens_in", "tokens_out", "cost")
# The cells csv_safe looks at: the texts people and evaluators write (and tags, in _tags_cell).
# The others are numbers, our own words (statuses, verdicts), a UUID or JSON text ("{…").
TEXT_CELLS = ("reason", "error", "stdout", "correction_note")


def _results(experiment: Experiment) -> Iterator[tuple]:
    """The rows in order as tuples of FIELDS and the turn's parts, from one server-side
    cursor (PostgreSQL) read FETCH_ROWS at a time."""
    return result_rows(
        experiment=experiment, columns=FIELDS, order=ORDER, target_columns=TARGET_USAGE
    )


def _bindings(experiment: Experiment) -> dict:
    """binding id → binding with its evaluator, read once instead of joined into every row."""
    bindings = experiment.bindings.select_related("evaluator_version__evaluator")
    return {b.pk: b for b in bindings}


def _rows(experiment: Experiment, tags: Callable[[str], Any]) -> Iterator[list]:
    """Each result as the export's row (values in CSV_FIELDS order, the JSONL's keys too),
    with the turn its evaluator received; `tags` turns the tags' JSON text into its value."""
    bindings = _bindings(experiment)
    evaluators = {pk: _evaluator(b) for pk, b in bindings.items()}
    turns = TurnRebuilder(experiment=experiment, bindings=bindings)
    for values in _results(experiment):
        binding, status, item, turn = values[0], values[5], values[18], values[19]
        parts = values[len(FIELDS) : _USAGE_AT]
        given = turns.turn(binding, item, values[3], turn, status, parts[0], target_parts(parts))
        yield _row(values, evaluators[binding], tags(values[4]), given, parts[1])


def _evaluator(binding) -> tuple[str, str]:
    version = binding.evaluator_version
    return version.evaluator.name, version.version


_USAGE_AT = len(FIELDS) + TURN_PARTS


def _row(values: tuple, evaluator: tuple[str, str], tags, given: dict, target: str | None) -> list:
    """The CSV_FIELDS of one result (a list: the CSV writes it as it is); `target` is the
    status of its target row."""
    latency, *target_usage = values[_USAGE_AT:]
    (_binding, uid, position, repeat, _tags, status, verdict, human, human_score, score, reason,
     error, stdout, latency_ms, tokens_in, tokens_out, cost, note, _item,
     turn) = values[: len(FIELDS)]  # fmt: skip
    return [
        uuid_text(uid), position, repeat, tags, evaluator[0], evaluator[1],
        turn,  # the assistant turn of a binding scored per turn, else 0
        status,
        human or verdict,  # verdict: Result.final_verdict
        verdict,  # evaluator_verdict
        human or None,  # human_verdict
        human_score if human and human_score is not None else score,
        reason, error, stdout, round(latency_ms, 3), tokens_in, tokens_out, cost, note,
        target, None if latency is None else round(latency, 3), *target_usage,
        given,  # input
    ]  # fmt: skip


def results_csv(experiment: Experiment) -> Iterator[str]:
    """The header at once, then ROWS_PER_CHUNK rows a chunk: each row is written as a list
    into one buffer as soon as it is built, and the buffer drained per chunk (a DictWriter
    and a drain per row cost more than the row)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_FIELDS)
    yield buffer_drain(buffer)
    for count, row in enumerate(_rows(experiment, _tags_cell), 1):
        writer.writerow(_csv_cells(row))
        if count % ROWS_PER_CHUNK == 0:
            yield buffer_drain(buffer)
    if buffer.tell():
        yield buffer_drain(buffer)


@lru_cache(maxsize=4096)
def _tags_cell(text: str) -> str:
    """The tags as one cell, "a,b" (runs have few distinct tag lists: each is parsed once)."""
    return csv_safe(",".join(json_list(text) or []))


def _csv_cells(row: list) -> list:
    for at in _TEXT_AT:
        row[at] = _safe(row[at])
    row[_EVALUATOR_AT : _EVALUATOR_AT + 2] = _safe_evaluator(
        *row[_EVALUATOR_AT : _EVALUATOR_AT + 2]
    )
    row[_INPUT_AT] = dumps(row[_INPUT_AT]).decode()
    return row


_TEXT_AT = tuple(CSV_FIELDS.index(field) for field in TEXT_CELLS)
_EVALUATOR_AT, _INPUT_AT = CSV_FIELDS.index("evaluator"), CSV_FIELDS.index("input")


# csv_safe changes only a cell starting with one of these (each formula start is one character)
_RISKY_FIRST = frozenset(FORMULA_STARTS) | {"'"}


def _safe(cell: str) -> str:
    """csv_safe, called only for a cell it could change (most are empty or plain words)."""
    return csv_safe(cell) if cell and cell[0] in _RISKY_FIRST else cell


@lru_cache(maxsize=256)
def _safe_evaluator(name: str, version: str) -> tuple[str, str]:
    return csv_safe(name), csv_safe(version)


def results_jsonl(experiment: Experiment) -> Iterator[str]:
    """ROWS_PER_CHUNK lines a chunk, each row written by orjson; the tags go as the JSON text
    the database holds (a Fragment), not parsed and written again."""
    rows = _rows(experiment, orjson.Fragment)
    lines = (dumps(dict(zip(CSV_FIELDS, row, strict=True))) + b"\n" for row in rows)
    return chunked(lines, ROWS_PER_CHUNK)
