"""Streamed exports of a pairwise run's pairs: CSV (spreadsheet-safe cells) and JSONL."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from django.http import StreamingHttpResponse

from assay.safety.csvcells import buffer_drain, csv_safe_row, download_response

from ..models import PairwiseResult, PairwiseRun

FORMATS = ("csv", "jsonl")
MIME = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}
FIELDS = [
    "item_id",
    "position",
    "repeat",
    "tags",
    "experiment_a",
    "experiment_a_name",
    "experiment_b",
    "experiment_b_name",
    *PairwiseResult.JUDGED_FIELDS,
    "input",
]


def pairwise_export_stream(run: PairwiseRun, fmt: str) -> Iterator[str]:
    """Every pair of the run, in row order, as text chunks of the chosen format."""
    return {"csv": _csv, "jsonl": _jsonl}[fmt](run)


def pairwise_export_filename(run: PairwiseRun, fmt: str) -> str:
    return f"pairwise-{run.public_id}-pairs.{fmt}"


def pairwise_export_response(run: PairwiseRun, fmt: str, *, excel: bool) -> StreamingHttpResponse:
    """The streamed download; `excel` (CSV only) starts it with a byte order mark so Excel
    reads UTF-8 (the default file is unchanged)."""
    return download_response(
        pairwise_export_stream(run, fmt),
        name=pairwise_export_filename(run, fmt),
        content_type=MIME[fmt],
        excel=excel,
    )


def _pairs(run: PairwiseRun):
    return (
        PairwiseResult.objects.filter(run=run)
        .select_related("experiment_a", "experiment_b")
        .order_by("position", "experiment_a_id", "experiment_b_id", "repeat", "pk")
        .iterator(chunk_size=2000)
    )


def _row(pair: PairwiseResult) -> dict:
    return {
        "item_id": str(pair.item_uid),
        "position": pair.position,
        "repeat": pair.repeat,
        "tags": pair.tags,
        "experiment_a": str(pair.experiment_a.public_id),
        "experiment_a_name": pair.experiment_a.name,
        "experiment_b": str(pair.experiment_b.public_id),
        "experiment_b_name": pair.experiment_b.name,
        "status": pair.status,
        "outcome": pair.outcome,
        "position_inconsistent": pair.position_inconsistent,
        "answer_ab": pair.answer_ab,
        "answer_ba": pair.answer_ba,
        "reason_ab": pair.reason_ab,
        "reason_ba": pair.reason_ba,
        "error": pair.error,
        "latency_ms": round(pair.latency_ms, 3),
        "tokens_in": pair.tokens_in,
        "tokens_out": pair.tokens_out,
        "cost": pair.cost,
        "cached": pair.cached,
        "input": pair.input,
    }


def _csv(run: PairwiseRun) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS)
    writer.writeheader()
    yield buffer_drain(buffer)
    for pair in _pairs(run):
        row = _row(pair)
        row["tags"] = ",".join(row["tags"] or [])
        row["input"] = json.dumps(row["input"], ensure_ascii=False)
        writer.writerow(csv_safe_row(row))  # a reason or output starting "=" stays text
        yield buffer_drain(buffer)


def _jsonl(run: PairwiseRun) -> Iterator[str]:
    for pair in _pairs(run):
        yield json.dumps(_row(pair), ensure_ascii=False) + "\n"
