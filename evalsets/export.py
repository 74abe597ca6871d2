"""Streamed exports of a version or the draft, as CSV or JSONL.

The files import back unchanged: columns at the top level, then the row fields `tags`,
`human_verdict` and `label`; `item_id` is written and ignored on import. A conversation is
written as its messages array (JSONL: the array; CSV: the array as JSON text in the cell).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils.text import slugify

from assay.safety.csvcells import buffer_drain, csv_safe_row, download_response

from .items.content import content_cell, export_value
from .items.problems import report_rows
from .models import EvalSet, EvalSetVersion
from .selectors import items_list

CHUNK = 2000
FORMATS = {"csv": "text/csv; charset=utf-8", "jsonl": "application/x-ndjson; charset=utf-8"}


def export_rows(items: QuerySet) -> Iterator[tuple]:
    fields = ("item_id", "data", "tags", "human_verdict", "label")
    return items.values_list(*fields).iterator(chunk_size=CHUNK)


def jsonl_lines(items: QuerySet, columns: list[str]) -> Iterator[bytes]:
    """One JSON object per row, encoded, a chunk of rows per yield."""
    buffer = []
    for item_id, data, tags, verdict, label in export_rows(items):
        record = {"item_id": str(item_id)}
        record.update((name, export_value(data[name])) for name in columns if name in data)
        record.update(tags=tags, human_verdict=verdict, label=label)
        buffer.append(json.dumps(record, ensure_ascii=False))
        if len(buffer) >= CHUNK:
            yield ("\n".join(buffer) + "\n").encode("utf-8")
            buffer = []
    if buffer:
        yield ("\n".join(buffer) + "\n").encode("utf-8")


def csv_lines(items: QuerySet, columns: list[str]) -> Iterator[bytes]:
    """A header, then one CSV row per item: text as is, media as URL or path, tags joined."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["item_id", *columns, "tags", "human_verdict", "label"])
    count = 0
    for item_id, data, tags, verdict, label in export_rows(items):
        cells = [content_cell(data[name]) if name in data else "" for name in columns]
        writer.writerow(csv_safe_row([str(item_id), *cells, ", ".join(tags), verdict, label]))
        count += 1
        if count % CHUNK == 0:
            yield buffer_drain(out).encode("utf-8")
    yield buffer_drain(out).encode("utf-8")


def export_response(
    *,
    evalset: EvalSet,
    version: EvalSetVersion | None,
    file_format: str,
    excel: bool = False,
) -> StreamingHttpResponse:
    """A download of the rows of `version` (None: the draft) in `file_format` (csv or jsonl),
    streamed row chunk by chunk; `excel` starts a CSV with a byte order mark, so Excel reads it
    as UTF-8. The page and the API both serve it."""
    columns = [c["name"] for c in (version.columns if version else evalset.columns)]
    lines = csv_lines if file_format == "csv" else jsonl_lines
    body = lines(items_list(evalset=evalset, version=version), columns)
    label = version.version if version else "draft"
    name = f"{slugify(evalset.name) or 'evalset'}-{label}.{file_format}"
    return download_response(body, name=name, content_type=FORMATS[file_format], excel=excel)


def errors_csv(errors: list[dict]) -> str:
    """An import's error report: line, column, problem (in the active language)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["line", "column", "problem"])
    for error in report_rows(errors):
        writer.writerow(csv_safe_row([error["line"], error["column"], error["problem"]]))
    return out.getvalue()
