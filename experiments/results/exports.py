"""Streamed exports of an experiment: results as CSV / JSONL, and garak's report and hit log
(`experiments/results/garak.py`)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from assay.safety.csvcells import csv_safe_row

from ..engine.turns import TurnKey, batched, keyed_turns
from ..models import Experiment, Result
from .garak import hitlog_jsonl, report_jsonl

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


# The columns an export writes, read as tuples: no model instances, no timestamps to convert.
FIELDS = (
    "binding_id", "item_uid", "position", "repeat", "tags", "status", "verdict", "human_verdict",
    "human_score", "score", "reason", "error", "stdout", "latency_ms", "tokens_in", "tokens_out",
    "cost", "correction_note", "item_id", "turn",
)  # fmt: skip


def _results(experiment: Experiment):
    """The rows in order as tuples of FIELDS, streamed through a server-side cursor
    (PostgreSQL) 2,000 at a time."""
    return (
        Result.objects.filter(experiment=experiment)
        .order_by("position", "repeat", "binding_id", "turn")
        .values_list(*FIELDS)
        .iterator(chunk_size=2000)
    )


def _bindings(experiment: Experiment) -> dict:
    """binding id → binding with its evaluator, read once instead of joined into every row."""
    bindings = experiment.bindings.select_related("evaluator_version__evaluator")
    return {b.pk: b for b in bindings}


def _rows(experiment: Experiment) -> Iterator[dict]:
    bindings = _bindings(experiment)
    # a chunk's rows have their turns rebuilt together (a few queries a chunk)
    for batch in batched(_results(experiment), ROWS_PER_CHUNK):
        keys = [_turn_key(experiment, values) for values in batch]
        turns = keyed_turns(keys=keys, experiment=experiment, bindings=bindings)
        for values, key in zip(batch, keys, strict=True):
            version = bindings[values[0]].evaluator_version
            yield _row(values, (version.evaluator.name, version.version), turns[key])


def _turn_key(experiment: Experiment, values: tuple) -> TurnKey:
    binding, status, item, turn = values[0], values[5], values[18], values[19]
    return TurnKey(experiment.pk, binding, item, values[3], turn, status)


def _row(values: tuple, evaluator: tuple[str, str], given: dict) -> dict:
    (_binding, uid, position, repeat, tags, status, verdict, human, human_score, score, reason,
     error, stdout, latency_ms, tokens_in, tokens_out, cost, note, _item,
     turn) = values  # fmt: skip
    return {
        "item_id": str(uid),
        "position": position,
        "repeat": repeat,
        "tags": tags,
        "evaluator": evaluator[0],
        "evaluator_version": evaluator[1],
        "turn": turn,  # the assistant turn of a binding scored per turn, else 0
        "status": status,
        "verdict": human or verdict,  # Result.final_verdict
        "evaluator_verdict": verdict,
        "human_verdict": human or None,
        "score": human_score if human and human_score is not None else score,
        "reason": reason,
        "error": error,
        "stdout": stdout,
        "latency_ms": round(latency_ms, 3),
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "cost": cost,
        "correction_note": note,
        "input": given,
    }


def _chunked(lines: Iterator[str]) -> Iterator[str]:
    """Lines joined into chunks of ROWS_PER_CHUNK (the first line on its own, at once)."""
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= ROWS_PER_CHUNK:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def results_csv(experiment: Experiment) -> Iterator[str]:
    """The header at once, then ROWS_PER_CHUNK rows a chunk: rows are written as lists into one
    buffer that is drained per chunk (a DictWriter and a drain per row cost more than the row)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_FIELDS)
    yield _drain(buffer)
    count = 0
    for row in _rows(experiment):
        row["tags"] = ",".join(row["tags"] or [])
        row["input"] = json.dumps(row["input"], ensure_ascii=False)
        writer.writerow(csv_safe_row([row[field] for field in CSV_FIELDS]))
        count += 1
        if count % ROWS_PER_CHUNK == 0:
            yield _drain(buffer)
    if count % ROWS_PER_CHUNK:
        yield _drain(buffer)


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def results_jsonl(experiment: Experiment) -> Iterator[str]:
    yield from _chunked(json.dumps(row, ensure_ascii=False) + "\n" for row in _rows(experiment))
