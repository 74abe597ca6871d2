"""Streamed exports of an experiment: results as CSV / JSONL, and garak's report and hit log
(`experiments/results/garak.py`)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from assay.safety.csvcells import csv_safe_row

from ..models import Experiment, Result
from .garak import hitlog_jsonl, report_jsonl

CSV_FIELDS = [
    "item_id",
    "position",
    "repeat",
    "tags",
    "evaluator",
    "evaluator_version",
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


def _results(experiment: Experiment):
    return (
        Result.objects.filter(experiment=experiment)
        .select_related("binding__evaluator_version__evaluator")
        .order_by("position", "repeat", "binding_id")
        .iterator(chunk_size=2000)
    )


def _row(result: Result) -> dict:
    version = result.binding.evaluator_version
    return {
        "item_id": str(result.item_uid),
        "position": result.position,
        "repeat": result.repeat,
        "tags": result.tags,
        "evaluator": version.evaluator.name,
        "evaluator_version": version.version,
        "status": result.status,
        "verdict": result.final_verdict,
        "evaluator_verdict": result.verdict,
        "human_verdict": result.human_verdict or None,
        "score": result.human_score
        if result.human_verdict and result.human_score is not None
        else result.score,
        "reason": result.reason,
        "error": result.error,
        "stdout": result.stdout,
        "latency_ms": round(result.latency_ms, 3),
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "cost": result.cost,
        "correction_note": result.correction_note,
        "input": result.input,
    }


def results_csv(experiment: Experiment) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_FIELDS)
    writer.writeheader()
    yield _drain(buffer)
    for result in _results(experiment):
        row = _row(result)
        row["tags"] = ",".join(row["tags"] or [])
        row["input"] = json.dumps(row["input"], ensure_ascii=False)
        writer.writerow(csv_safe_row(row))
        yield _drain(buffer)


def _drain(buffer: io.StringIO) -> str:
    text = buffer.getvalue()
    buffer.seek(0)
    buffer.truncate()
    return text


def results_jsonl(experiment: Experiment) -> Iterator[str]:
    for result in _results(experiment):
        yield json.dumps(_row(result), ensure_ascii=False) + "\n"
