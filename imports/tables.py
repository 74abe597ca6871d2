"""Rows read from another tool's file, made into an evalset version (for the dataset and
registry importers).

A `Table` holds typed columns and rows of plain values (text, numbers, JSON values, chat
message lists) with the place each row came from. `table_commit` creates the set through
evalsets' services (the rows checked by its row builder), commits version 1.0.0 and names a
bad cell by its file place, so nothing is kept when one row is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from assay.vocabulary import ContentType
from evalsets.importing.naming import suggested_names
from evalsets.services import MAX_BULK, evalset_create, items_bulk, version_commit

from .kinds import ImportProblem, Report

MAX_ROWS = 100_000


@dataclass
class Table:
    columns: list[dict] = field(default_factory=list)
    rows: list[dict] = field(default_factory=list)
    places: list[str] = field(default_factory=list)
    sources: list[dict | None] = field(default_factory=list)


def is_messages(value) -> bool:
    """A chat conversation as OpenAI writes it: a non-empty list of {role, content} objects."""
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(m, dict) and "role" in m for m in value)
    )


def content_type_of(values: list) -> str:
    """Conversation when every given value is a message list, else Text."""
    given = [v for v in values if v is not None and v != ""]
    if given and all(is_messages(v) for v in given):
        return ContentType.CONVERSATION
    return ContentType.TEXT


def cell(value, content_type: str):
    """A value as the column's cell: messages kept, everything else as text (JSON for
    objects and lists, so nothing is lost)."""
    if value is None or value == "" or content_type == ContentType.CONVERSATION:
        return value
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def column_names(keys: list[str], taken: list[str], prefix: str = "") -> dict[str, str]:
    """A free, valid column name for each source key (evalsets' own naming)."""
    names = suggested_names([f"{prefix}{k}" for k in keys], taken)
    return {k: names[f"{prefix}{k}"] for k in keys}


def add_column(table: Table, name: str, values: list, description: str) -> str:
    """A column `name` typed by its values, its cells set row by row; returns its type."""
    content_type = content_type_of(values)
    table.columns.append({"name": name, "content_type": content_type, "description": description})
    for row, value in zip(table.rows, values, strict=True):
        converted = cell(value, content_type)
        if converted is not None and converted != "":
            row[name] = converted
    return content_type


def table_commit(*, workspace, user, name: str, table: Table, note: str, report: Report):
    """Create the set `name` with the table's columns and rows and commit version 1.0.0."""
    if not table.rows:
        raise ImportProblem("file", "no rows to import")
    if len(table.rows) > MAX_ROWS:
        raise ImportProblem("file", f"more than {MAX_ROWS:,} rows")
    try:
        evalset = evalset_create(workspace=workspace, user=user, name=name, columns=table.columns)
    except ValidationError as exc:
        key, messages = next(iter(exc.message_dict.items()))
        raise ImportProblem("name" if key == "name" else "file", messages[0]) from None
    for start in range(0, len(table.rows), MAX_BULK):
        _add_rows(evalset, table, start)
    version = version_commit(evalset=evalset, user=user, version="1.0.0", note=note, inline=True)
    report.add_created("evalset", evalset.public_id)
    report.add_created("evalset_version", version.public_id)
    return version


def _add_rows(evalset, table: Table, start: int) -> None:
    chunk = slice(start, start + MAX_BULK)
    create = [{"data": row} for row in table.rows[chunk]]
    try:
        items_bulk(evalset=evalset, create=create, sources=table.sources[chunk])
    except ValidationError as exc:
        key, messages = next(iter(exc.message_dict.items()))
        raise ImportProblem(_place(table, start, key), messages[0]) from None


def _place(table: Table, start: int, key: str) -> str:
    """`create[3].data.input` → the file place of that row and its column."""
    if not key.startswith("create["):
        return "file"
    index = int(key[len("create[") : key.index("]")])
    column = key.rsplit(".", 1)[-1] if ".data." in key else ""
    place = table.places[start + index]
    return f"{place}, column {column}" if column else place
