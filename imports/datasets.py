"""The `dataset` importer: a Langfuse or Phoenix dataset export → an evalset version.

Langfuse writes dataset items as objects with `id`, `input`, `expectedOutput`, `metadata`,
`status` and the trace they came from (the public API's `DatasetItem`; a page of the API is
`{"data": [items], "meta": …}`), as JSON, JSONL or a CSV with those headers. Phoenix writes
examples with `input`, `output` and `metadata` objects (the REST API's
`{"data": {"examples": […]}}`, or JSONL), its CSV download flattens them into
`example_id`, `input_<key>`, `output_<key>` and `metadata_<key>` columns, and its OpenAI
Evals JSONL download writes `{"messages": […], "ideal": "…"}` lines.

Columns: an input that is an object on every row becomes one column per key (Phoenix's input
keys), else one `input` column; the expected output becomes `reference_output` (an object
with a single key gives that key's value); each metadata key becomes a `metadata_<key>`
column. A column is a Conversation when every value is a chat message list, else Text (JSON
text for objects). Ids stay with each row as its source, never a column.
"""

from __future__ import annotations

import hashlib
import io
import json

from django.utils.translation import gettext_lazy as _

from evalsets.importing.readers import FileProblem, read_csv, read_jsonl
from evalsets.items.problems import problem_text

from .kinds import FileSpec, ImporterKind, ImportProblem, Report
from .tables import Table, add_column, column_names, table_commit

FORMATS = ("auto", "langfuse", "phoenix")
MAX_INPUT_KEYS = 20
MAX_METADATA_KEYS = 20
LANGFUSE_MARKS = {"expectedOutput", "expected_output", "datasetName", "datasetId", "sourceTraceId"}


class Example:
    """One source row: its input, expected output and metadata, where it is and its source."""

    def __init__(self, place: str, input, expected, metadata, source: dict):
        self.place, self.input, self.expected = place, input, expected
        self.metadata = metadata if isinstance(metadata, dict) else {}
        self.source = source


class DatasetImporter(ImporterKind):
    name = "dataset"
    label = _("Langfuse or Phoenix dataset")
    files = (
        FileSpec(
            "file", True, _("The dataset's export: JSON, JSONL or CSV from Langfuse or Phoenix.")
        ),
    )

    def run(self, *, workspace, user, files, options, report):
        """Read the export, build typed columns and commit them as a new set's 1.0.0."""
        data = files["file"]
        records, shape = read_records(data)
        tool = _tool(options.get("format") or "auto", records, shape)
        examples, name = (langfuse_examples if tool == "langfuse" else phoenix_examples)(
            records, shape, report
        )
        table = examples_table(examples, report)
        name = (options.get("name") or "").strip() or name or _default_name(tool, data)
        table_commit(
            workspace=workspace,
            user=user,
            name=name,
            table=table,
            note=f"Imported from a {tool.title()} dataset export",
            report=report,
        )


# --------------------------------------------------------------------------- reading


def read_records(data: bytes) -> tuple[list[tuple[str, dict]], str]:
    """(place, record) pairs and the file's shape: "json", "jsonl" or "csv"."""
    text = data.lstrip()[:1]
    if text in (b"[", b"{"):
        try:
            return _json_records(json.loads(data.decode("utf-8-sig"))), "json"
        except json.JSONDecodeError as exc:
            if exc.msg != "Extra data":
                problem = f"not valid JSON: {exc.msg} (line {exc.lineno})"
                raise ImportProblem("file", problem) from None
        except UnicodeDecodeError:
            raise ImportProblem("file", "not UTF-8 text") from None
        return _jsonl_records(data), "jsonl"
    return _csv_records(data), "csv"


def _json_records(value) -> list[tuple[str, dict]]:
    items = value
    if isinstance(value, dict):
        inner = value.get("data", value)
        items = inner.get("examples") if isinstance(inner, dict) else inner
        if isinstance(value.get("items"), list):
            items = value["items"]
        if items is value or items is None:
            items = [value]  # one item on its own
    if not isinstance(items, list):
        raise ImportProblem("file", "expected a list of dataset items or examples")
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ImportProblem(f"file, item {index + 1}", "each item is a JSON object")
    return [(f"file, item {i + 1}", item) for i, item in enumerate(items)]


def _jsonl_records(data: bytes) -> list[tuple[str, dict]]:
    records, _lines = read_jsonl(io.BytesIO(data))
    out = []
    for line, record, problems in records:
        if problems:
            raise ImportProblem(f"file, line {line}", problem_text(problems[0][1]))
        out.append((f"file, line {line}", record))
    return out


def _csv_records(data: bytes) -> list[tuple[str, dict]]:
    try:
        _fields, records, _lines = read_csv(io.BytesIO(data))
        out = []
        for line, record, problems in records:
            if problems:
                raise ImportProblem(f"file, line {line}", problem_text(problems[0][1]))
            out.append((f"file, line {line}", record))
    except FileProblem as exc:
        raise ImportProblem(f"file, line {exc.line}", problem_text(exc.problem)) from None
    return out


def _tool(chosen: str, records: list, shape: str) -> str:
    if chosen not in FORMATS:
        raise ImportProblem("format", f"use one of {', '.join(FORMATS)}; got {chosen!r}")
    if chosen != "auto":
        return chosen
    keys = set().union(*(r.keys() for _p, r in records[:50])) if records else set()
    if keys & LANGFUSE_MARKS:
        return "langfuse"
    if "output" in keys or "example_id" in keys or _prefixed(keys) or {"messages", "ideal"} <= keys:
        return "phoenix"
    if "input" in keys:
        return "langfuse"
    raise ImportProblem(
        "file", "neither a Langfuse nor a Phoenix dataset export; choose the format option"
    )


def _prefixed(keys: set[str]) -> bool:
    return any(k.startswith(("input_", "output_")) for k in keys)


# --------------------------------------------------------------------------- the tools


def langfuse_examples(records, shape: str, report: Report) -> tuple[list[Example], str]:
    """Langfuse dataset items; archived items are left out (Langfuse leaves them out of runs)."""
    examples, archived, name = [], 0, ""
    for place, item in records:
        if str(item.get("status", "")).upper() == "ARCHIVED":
            archived += 1
            continue
        name = name or str(item.get("datasetName") or "")
        expected = item.get("expectedOutput", item.get("expected_output"))
        fields = [item.get("input"), expected, item.get("metadata")]
        if shape == "csv":
            fields = [_json_cell(value) for value in fields]
        source = {"kind": "langfuse", "id": item.get("id")}
        source |= {k: item[k] for k in ("sourceTraceId", "sourceObservationId") if item.get(k)}
        examples.append(Example(place, *fields, source=source))
    if archived:
        report.unmapped(f"{archived} archived items", "left out, as Langfuse leaves them out")
    report.mapped("id, sourceTraceId", "each row's source (kept with the row, not a column)")
    return examples, name


def phoenix_examples(records, shape: str, report: Report) -> tuple[list[Example], str]:
    """Phoenix examples; a CSV download's `input_<key>` columns are its input keys again."""
    examples = []
    for place, record in records:
        if shape == "csv":
            parts = {p: _split(record, f"{p}_") for p in ("input", "output", "metadata")}
            ident = record.get("example_id")
        elif "input" not in record and "messages" in record:  # the openai_evals download
            parts = {"input": {"messages": record["messages"]}, "output": record.get("ideal")}
            ident = None
        else:
            parts = {p: record.get(p) for p in ("input", "output", "metadata")}
            ident = record.get("id")
        source = {"kind": "phoenix", "id": ident}
        fields = [parts.get(p) for p in ("input", "output", "metadata")]
        examples.append(Example(place, *fields, source=source))
    report.mapped("id", "each row's source (kept with the row, not a column)")
    return examples, ""


def _split(record: dict, prefix: str) -> dict:
    return {k[len(prefix) :]: _json_cell(v) for k, v in record.items() if k.startswith(prefix)}


def _json_cell(value):
    """A CSV cell holding a JSON object or list is that value; other text stays text."""
    if isinstance(value, str) and value.strip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


# --------------------------------------------------------------------------- columns


def examples_table(examples: list[Example], report: Report) -> Table:
    table = Table(
        rows=[{} for _ in examples],
        places=[e.place for e in examples],
        sources=[e.source for e in examples],
    )
    _input_columns(table, [e.input for e in examples], report)
    _expected_column(table, [e.expected for e in examples], report)
    _metadata_columns(table, [e.metadata for e in examples], report)
    return table


def _input_columns(table: Table, inputs: list, report: Report) -> None:
    keys = _object_keys(inputs)
    if keys is None or len(keys) > MAX_INPUT_KEYS:
        kind = add_column(table, "input", inputs, "The item's input.")
        report.mapped("input", f"column input ({kind})")
        return
    for key, name in column_names(keys, []).items():
        values = [(value or {}).get(key) for value in inputs]
        kind = add_column(table, name, values, f"input.{key} of the item")
        report.mapped(f"input.{key}", f"column {name} ({kind})")


def _expected_column(table: Table, expected: list, report: Report) -> None:
    if all(value is None or value == "" for value in expected):
        report.unmapped("expected output", "no item has one: the set has no reference column")
        return
    keys = _object_keys(expected)
    source = "expected output"
    if keys is not None and len(keys) == 1:
        source = f"expected output.{keys[0]}"
        expected = [(value or {}).get(keys[0]) for value in expected]
    taken = [c["name"] for c in table.columns]
    name = column_names(["reference_output"], taken)["reference_output"]
    kind = add_column(table, name, expected, "The expected output.")
    report.mapped(source, f"column {name} ({kind})")


def _metadata_columns(table: Table, metadata: list[dict], report: Report) -> None:
    keys = list(dict.fromkeys(k for m in metadata for k in m))
    if not keys:
        return
    taken = [c["name"] for c in table.columns]
    if len(keys) > MAX_METADATA_KEYS:
        name = column_names(["metadata"], taken)["metadata"]
        add_column(table, name, [m or None for m in metadata], "The item's metadata (JSON).")
        report.mapped("metadata", f"column {name} (Text, JSON): {len(keys)} keys kept together")
        return
    for key, name in column_names(keys, taken, prefix="metadata_").items():
        kind = add_column(table, name, [m.get(key) for m in metadata], f"metadata.{key}")
        report.mapped(f"metadata.{key}", f"column {name} ({kind})")


def _object_keys(values: list) -> list[str] | None:
    """The keys of the values when every given one is an object (not a lone message
    list), in first-seen order; None otherwise."""
    given = [v for v in values if v is not None and v != ""]
    if not given or not all(isinstance(v, dict) for v in given):
        return None
    return list(dict.fromkeys(k for v in given for k in v))


def _default_name(tool: str, data: bytes) -> str:
    return f"{tool.title()} dataset {hashlib.sha256(data).hexdigest()[:8]}"
