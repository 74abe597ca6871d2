"""Streaming readers for CSV and JSONL files: one record at a time, with its line number.

Pure Python. Each reader takes a binary file and yields `(line, record, problems)`: a record is a
dict (field → value) or None when the line is unusable, and problems are (column, message)
pairs. Bytes are decoded line by line so a bad byte is reported on its own line.

Messages are `Problem`s (English as text, a message id marked with `N_` and named parameters):
a request shows them translated (`items.problems.problem_text`), an import run in a worker
stores the message id and the report is translated when it is read.
"""

from __future__ import annotations

import codecs
import csv
import json
from collections import Counter
from collections.abc import Iterator

from assay.safety.csvcells import csv_restore

from ..items.cells import N_, TEXT_CELL_CAP, Problem

Record = tuple[int, dict | None, list[tuple[str, Problem]]]

# csv refuses fields over its limit; allow a little more than the text cap so the cap's own,
# clearer message is the one people see.
CSV_FIELD_LIMIT = TEXT_CELL_CAP * 4 + 1024
csv.field_size_limit(CSV_FIELD_LIMIT)
MAX_FIELDS = 1000
MAX_HEADER_BYTES = 64 * 1024


class FileProblem(ValueError):
    """The file cannot be read at all (no header, duplicate header names…)."""

    def __init__(self, line: int, column: str, problem: Problem | str):
        super().__init__(f"line {line}: {problem}")
        self.line, self.column, self.problem = line, column, problem


ENCODINGS = ("utf-8", "utf-8-sig", "gb18030", "latin-1")
SNIFF_BYTES = 64 * 1024


def encoding_problem(sample: bytes, encoding: str) -> Problem | str:
    """A file-level message when `sample` (the file's start) is not text in `encoding`, with a
    guess of what it is instead; '' when it reads."""
    if _decodes(sample, encoding):
        return ""
    guess = encoding_guess(sample, encoding)
    params = {"upper": encoding.upper(), "encodings": ", ".join(e.upper() for e in ENCODINGS)}
    if guess:
        return Problem(
            N_(
                "The file is not %(upper)s text. It looks like %(guess)s. Choose its encoding "
                "(%(encodings)s) and upload it again."
            ),
            {**params, "guess": guess.upper()},
        )
    return Problem(
        N_(
            "The file is not %(upper)s text. Choose its encoding (%(encodings)s) and "
            "upload it again."
        ),
        params,
    )


def encoding_guess(sample: bytes, encoding: str) -> str:
    """Another encoding `sample` reads in when it does not read in `encoding` ('' if none)."""
    if _decodes(sample, encoding):
        return ""
    return next((e for e in ("utf-8", "gb18030") if e != encoding and _decodes(sample, e)), "")


def _decodes(sample: bytes, encoding: str) -> bool:
    decoder = codecs.getincrementaldecoder(encoding)()
    try:
        decoder.decode(sample, final=False)  # a character cut at the sample's end is fine
    except UnicodeDecodeError:
        return False
    return True


class Lines:
    """Decoded lines of a binary file, counting lines and bytes and noting undecodable ones."""

    def __init__(self, binary, first_line_limit: int | None = None, encoding: str = "utf-8"):
        self.binary = binary
        self.encoding = encoding
        self.line = 0
        self.bytes_read = 0
        self.bad: list[tuple[int, str]] = []
        self.first_line_limit = first_line_limit

    def __iter__(self) -> Iterator[str]:
        for raw in self._raw_lines():
            self.line += 1
            self.bytes_read += len(raw)
            if self.line == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            try:
                yield raw.decode(self.encoding)
            except UnicodeDecodeError as exc:
                self.bad.append((self.line, _decode_problem(raw, exc)))
                yield raw.decode(self.encoding, "replace")

    def _raw_lines(self):
        if self.first_line_limit:
            _check_first_line(self.binary, self.first_line_limit)
        return self.binary


def _check_first_line(binary, limit: int) -> None:
    """Refuse a header line over `limit` bytes without reading it whole (a file's lines are
    read whole, so a 100 MB first line would otherwise be loaded and split)."""
    start = binary.tell()
    head = binary.read(limit + 1)
    binary.seek(start)
    if len(head) > limit and b"\n" not in head and b"\r" not in head:
        raise FileProblem(
            1,
            "",
            Problem(
                N_(
                    "the header line is longer than %(limit)s bytes; "
                    "a header has at most %(max)s fields"
                ),
                {"limit": f"{limit:,}", "max": f"{MAX_FIELDS:,}"},
            ),
        )


def _decode_problem(raw: bytes, exc: UnicodeDecodeError) -> Problem:
    column = len(raw[: exc.start].decode(exc.encoding, "replace")) + 1
    name = exc.encoding.upper()
    return Problem(
        N_(
            "not %(encoding)s text: byte 0x%(byte)s at character %(column)s; "
            "choose the file's encoding or save it as UTF-8"
        ),
        {"encoding": name, "byte": f"{raw[exc.start]:02x}", "column": column},
    )


def csv_fields(lines: Lines, reader) -> list[str]:
    """The header row's field names (the first non-empty record)."""
    for header in reader:
        if lines.bad:
            line, problem = lines.bad[0]
            raise FileProblem(line, "", problem)
        if not header or not any(h.strip() for h in header):
            continue
        names = [h.strip() for h in header]
        if len(names) > MAX_FIELDS:
            raise FileProblem(lines.line, "", _too_many(len(names)))
        if any(not n for n in names):
            raise FileProblem(
                lines.line,
                "",
                Problem(N_("header cell %(n)s is empty"), {"n": names.index("") + 1}),
            )
        counts = Counter(names)
        duplicates = sorted(n for n, count in counts.items() if count > 1)
        if duplicates:
            problem = Problem(N_("column %(name)r appears twice"), {"name": duplicates[0]})
            raise FileProblem(lines.line, duplicates[0], problem)
        return names
    raise FileProblem(1, "", Problem(N_("the file is empty: a CSV file needs a header row")))


def _too_many(count: int) -> Problem:
    return Problem(
        N_("the file has %(count)s fields; a header has at most %(max)s"),
        {"count": f"{count:,}", "max": f"{MAX_FIELDS:,}"},
    )


def read_csv(binary, encoding: str = "utf-8") -> tuple[list[str], Iterator[Record], Lines]:
    """The header and an iterator of records; `Lines` tells how far the reading got."""
    lines = Lines(binary, first_line_limit=MAX_HEADER_BYTES, encoding=encoding)
    reader = csv.reader(iter(lines), strict=True)
    try:
        fields = csv_fields(lines, reader)
    except csv.Error as exc:
        problem = Problem(N_("malformed CSV: %(error)s"), {"error": str(exc)})
        raise FileProblem(lines.line or 1, "", problem) from None
    return fields, _csv_records(fields, lines, reader), lines


def _csv_records(fields: list[str], lines: Lines, reader) -> Iterator[Record]:
    width = len(fields)
    while True:
        start = lines.line + 1
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            yield start, None, [("", _csv_problem(exc))]
            continue
        if lines.bad:
            yield start, None, [("", problem) for _line, problem in lines.bad]
            lines.bad.clear()
            continue
        if not values:
            continue  # a blank line
        if len(values) != width:
            yield start, None, [("", _ragged(len(values), width))]
            continue
        yield start, dict(zip(fields, map(csv_restore, values), strict=True)), []


def _csv_problem(exc: csv.Error) -> Problem:
    text = str(exc)
    if "field larger than field limit" in text:
        return Problem(
            N_("a cell is larger than the %(limit)s-byte limit"), {"limit": f"{TEXT_CELL_CAP:,}"}
        )
    if "unexpected end of data" in text:
        return Problem(N_("malformed CSV: a quoted cell is never closed (unexpected end of data)"))
    return Problem(N_("malformed CSV: %(error)s (check the quoting of this row)"), {"error": text})


def _ragged(got: int, width: int) -> Problem:
    return Problem(
        N_("this row has %(got)s cells but the header has %(width)s; check commas and quoting"),
        {"got": got, "width": width},
    )


def read_jsonl(binary, encoding: str = "utf-8") -> tuple[Iterator[Record], Lines]:
    """An iterator of records, one JSON object per non-blank line."""
    lines = Lines(binary, encoding=encoding)
    return _jsonl_records(lines), lines


def _jsonl_records(lines: Lines) -> Iterator[Record]:
    loads = json.loads
    for text in lines:
        if lines.bad:
            yield lines.line, None, [("", problem) for _line, problem in lines.bad]
            lines.bad.clear()
            continue
        if not text.strip():
            continue
        try:
            record = loads(text)
        except json.JSONDecodeError as exc:
            yield lines.line, None, [("", _json_problem(exc))]
            continue
        except RecursionError:
            yield (
                lines.line,
                None,
                [("", Problem(N_("the JSON on this line is nested too deeply")))],
            )
            continue
        if not isinstance(record, dict):
            problem = Problem(
                N_("each line must be a JSON object, got a %(type)s"),
                {"type": type(record).__name__},
            )
            yield lines.line, None, [("", problem)]
            continue
        yield lines.line, record, []


def _json_problem(exc: json.JSONDecodeError) -> Problem:
    return Problem(
        N_("not valid JSON: %(error)s at character %(column)s"),
        {"error": exc.msg, "column": exc.colno},
    )


def jsonl_fields(binary, sample_lines: int = 200, encoding: str = "utf-8") -> list[str]:
    """The keys seen in the first lines of a JSONL file, in first-seen order."""
    records, _lines = read_jsonl(binary, encoding)
    seen: dict[str, None] = {}
    for count, (line, record, _problems) in enumerate(records):
        if count >= sample_lines:
            break
        for key in record or {}:
            seen.setdefault(key, None)
        if len(seen) > MAX_FIELDS:
            raise FileProblem(line, "", _too_many(len(seen)))
    return list(seen)


def jsonl_sample(binary, sample_lines: int = 20, encoding: str = "utf-8") -> list[dict]:
    """The first good records, to guess the content types of new columns."""
    records, _lines = read_jsonl(binary, encoding)
    sample = []
    for _line, record, _problems in records:
        if record is not None:
            sample.append(record)
        if len(sample) >= sample_lines:
            break
    return sample
