"""Local CSV/JSONL files pushed as evaluation-set versions: their fields, the import's column
mapping onto a set that already has columns, and the next version string."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

RESERVED = {"tags", "human_verdict", "label"}
COLUMN_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
CONTENT_TYPES = {"Text", "Image", "Audio", "MultiPart", "Conversation"}
SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")
SAMPLE_LINES = 200


def file_format(path: Path) -> str:
    """ "csv" or "jsonl", from the file name."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    raise ValueError(f"{path.name}: name the file .csv or .jsonl")


def file_fields(path: Path) -> tuple[list[str], dict[str, str]]:
    """The file's fields in order, and the content type of each JSONL field that holds
    content objects ({"content_type": "Image", ...}) or chat messages (a list of objects with
    a role: Conversation); every other field is Text."""
    if file_format(path) == "csv":
        with path.open(newline="", encoding="utf-8-sig") as handle:
            return next(csv.reader(handle), []), {}
    fields: dict[str, None] = {}
    types: dict[str, str] = {}
    with path.open(encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle):
            if number >= SAMPLE_LINES:
                break
            record = _json_object(line)
            for key, value in record.items():
                fields.setdefault(key)
                kind = _content_type(value)
                if kind:
                    types.setdefault(key, kind)
    return list(fields), types


def _content_type(value) -> str | None:
    """The type a JSONL cell announces, as the server guesses it for a new column."""
    if isinstance(value, dict) and value.get("content_type") in CONTENT_TYPES:
        return value["content_type"]
    if (
        isinstance(value, list)
        and value
        and all(isinstance(m, dict) and "role" in m for m in value)
    ):
        return "Conversation"
    return None


def _json_object(line: str) -> dict:
    try:
        record = json.loads(line) if line.strip() else {}
    except ValueError:
        return {}
    return record if isinstance(record, dict) else {}


def import_mapping(path: Path, columns: list[dict]) -> tuple[dict, list[dict]]:
    """(mapping, new_columns) for importing `path` into a set with `columns`: same-named
    fields fill their column, row fields (tags, human_verdict, label) their place, `item_id`
    is ignored, and any other well-named field becomes a new column."""
    fields, types = file_fields(path)
    existing = {c["name"] for c in columns}
    mapping, new_columns = {}, []
    for field in fields:
        if field in existing:
            mapping[field] = field
        elif field in RESERVED:
            mapping[field] = "@" + field
        elif field == "item_id":
            mapping[field] = ""
        elif COLUMN_NAME.match(field):
            mapping[field] = field
            new_columns.append({"name": field, "content_type": types.get(field, "Text")})
    return mapping, new_columns


def next_version(latest: str | None) -> str:
    """One patch above `latest` (a pre-release becomes its release), or 1.0.0."""
    if not latest:
        return "1.0.0"
    match = SEMVER.match(latest)
    if match is None:
        raise ValueError(f"cannot tell the version after {latest!r}; pass a version")
    major, minor, patch, pre = match.group(1), match.group(2), int(match.group(3)), match.group(4)
    return f"{major}.{minor}.{patch if pre else patch + 1}"
