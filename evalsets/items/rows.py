"""Turning one record (a CSV row, a JSONL object, an API item) into a checked item row.

Pure Python, no Django: problems are `cells.Problem`s (a message id marked with `N_` and its
parameters), translated where they are shown. A `RowBuilder` is set up once per import (or API
call) with the set's columns and the field mapping; `build()` then runs per row with one
converter per field.
"""

from __future__ import annotations

import json
import re
import secrets
import time
import uuid
from typing import NamedTuple

from assay.vocabulary import VERDICTS as VERDICT_VALUES

from .cells import N_, CellError, Problem, UriCheck
from .content import TEXT, content_text, converter

TAGS, VERDICT, LABEL, IGNORE = "@tags", "@human_verdict", "@label", ""
SPECIAL_TARGETS = {TAGS: "tags", VERDICT: "human_verdict", LABEL: "label"}
RESERVED_NAMES = {"item_id", "tags", "human_verdict", "label"}
VERDICTS = set(VERDICT_VALUES)
MAX_TAGS = 20
MAX_TAG_LEN = 40
LABEL_CAP = 4096
SEARCH_CELL_CAP = 500
SEARCH_CAP = 2000
COLUMN_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
TAG_SPLIT_RE = re.compile(r"[,;|]")


class Row(NamedTuple):
    data: dict
    tags: list[str]
    human_verdict: str
    label: str
    search_text: str


FieldProblem = tuple[str, Problem]  # (column or field, what is wrong)


def default_mapping(fields: list[str], column_names: list[str]) -> dict[str, str]:
    """Map file fields onto same-named columns and the reserved fields; others stay unmapped.

    `item_id` (in every export) is ignored, so an exported file imports back as new rows.
    """
    mapping, column_names = {}, set(column_names)
    for field in fields:
        if field in column_names:
            mapping[field] = field
        elif field in RESERVED_NAMES:
            mapping[field] = IGNORE if field == "item_id" else "@" + field
    return mapping


class RowBuilder:
    """Checks and converts records for one set of columns under one mapping."""

    def __init__(self, columns: list[dict], mapping: dict[str, str], check_uri: UriCheck):
        by_name = {c["name"]: c for c in columns}
        self.fields = set(mapping)
        self.plan = []  # (field, target, convert, is_column); ignored fields are left out
        for field, target in mapping.items():
            if target in by_name:
                convert = converter(by_name[target]["content_type"], check_uri)
                self.plan.append((field, target, convert, True))
            elif target in SPECIAL_TARGETS:
                self.plan.append((field, target, SPECIAL_PARSERS[target], False))
            elif target != IGNORE:
                raise CellError(
                    N_("field %(field)s maps to unknown column %(column)s"),
                    {"field": repr(field), "column": repr(target)},
                )
        mapped = {t for t in mapping.values() if t in by_name}
        self.required = [c["name"] for c in columns if c.get("required") and c["name"] in mapped]

    def build(self, record: dict) -> tuple[Row | None, list[FieldProblem]]:
        """The row, or None and every problem found in the record."""
        problems: list[FieldProblem] = []
        if not record.keys() <= self.fields:
            problems.extend(self._unknown(record))
        data, extra = {}, {}
        for field, target, convert, is_column in self.plan:
            value = record.get(field)
            if value is None or value == "":
                continue
            try:
                if is_column:
                    data[target] = convert(value)
                else:
                    extra[target] = convert(value)
            except CellError as exc:
                problems.append((field, exc.problem))
        for name in self.required:
            if name not in data and not any(p[0] == name for p in problems):
                problems.append((name, Problem(REQUIRED)))
        if problems:
            return None, problems
        return (
            Row(
                data,
                extra.get(TAGS, NO_TAGS),
                extra.get(VERDICT, ""),
                extra.get(LABEL, ""),
                search_text(data),
            ),
            problems,
        )

    def _unknown(self, record: dict) -> list[FieldProblem]:
        return [
            (field, Problem(UNKNOWN_COLUMN, {"field": repr(field)}))
            for field in record
            if field not in self.fields
        ]


REQUIRED = N_("this column is required and the cell is empty")
UNKNOWN_COLUMN = N_("unknown column %(field)s: map it to a column of the set, or ignore it")
NO_TAGS: list[str] = []


def parse_tags(value) -> list[str]:
    """Tags from a JSON list, a JSON-list string, or "a, b; c" text."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise CellError(
                    N_("tags are not a valid JSON list: %(error)s"), {"error": exc.msg}
                ) from None
        else:
            value = [t for t in TAG_SPLIT_RE.split(text)]
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise CellError(N_("tags must be a list of strings"))
    tags = sorted({t.strip() for t in value if t.strip()})
    if len(tags) > MAX_TAGS:
        raise CellError(
            N_("at most %(max)s tags per row, got %(count)s"), {"max": MAX_TAGS, "count": len(tags)}
        )
    long = [t for t in tags if len(t) > MAX_TAG_LEN]
    if long:
        raise CellError(
            N_("tag %(tag)s is longer than %(max)s characters"),
            {"tag": repr(long[0][:50]), "max": MAX_TAG_LEN},
        )
    return tags


def parse_verdict(value) -> str:
    if not isinstance(value, str) or value.strip().lower() not in VERDICTS | {""}:
        raise CellError(
            N_("human verdict must be pass, fail or unknown, got %(got)s"),
            {"got": repr(str(value)[:40])},
        )
    return value.strip().lower()


def parse_label(value) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise CellError(N_("label must be text"))
    if len(value) > LABEL_CAP:
        raise CellError(N_("label is longer than %(max)s characters"), {"max": LABEL_CAP})
    return value


SPECIAL_PARSERS = {TAGS: parse_tags, VERDICT: parse_verdict, LABEL: parse_label}


def search_text(data: dict) -> str:
    """The start of each cell's text, joined: what the rows table's search looks in."""
    parts = []
    for content in data.values():
        if content["content_type"] == TEXT:
            parts.append(content["text"][:SEARCH_CELL_CAP])
        else:
            parts.append(content_text(content)[:SEARCH_CELL_CAP])
    return "\n".join(parts)[:SEARCH_CAP]


def column_name_problem(name) -> Problem | None:
    """Why `name` cannot be a column name, or None when it can."""
    if not isinstance(name, str) or not COLUMN_NAME_RE.match(name):
        return Problem(
            N_(
                "%(name)s is not a valid column name: start with a letter or _, then letters, "
                "digits or _, at most 64 characters"
            ),
            {"name": repr(str(name)[:70])},
        )
    if name in RESERVED_NAMES:
        return Problem(
            N_("%(name)s is reserved (item_id, tags, human_verdict and label are row fields)"),
            {"name": repr(name)},
        )
    return None


def new_item_ids(count: int) -> list[uuid.UUID]:
    """Time-ordered UUIDs (version 7 layout) so bulk inserts append to the item_id index."""
    millis = time.time_ns() // 1_000_000
    start = secrets.randbits(70)  # leaves room to count up without carrying into the time
    ids = []
    for offset in range(count):
        counter = start + offset
        value = (millis << 80) | (0x7 << 76) | ((counter >> 62) << 64) | (0b10 << 62)
        ids.append(uuid.UUID(int=value | (counter & ((1 << 62) - 1))))
    return ids
