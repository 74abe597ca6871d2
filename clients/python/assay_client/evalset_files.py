"""Local CSV/JSONL files pushed as evaluation-set versions: their format and the next version
string. Which column a field fills is the server's to say (`assay evalset push` sends no
mapping): it matches names and synonyms and names new columns as the web map step does."""

from __future__ import annotations

import re
from pathlib import Path

SEMVER = re.compile(r"^(\d+)\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")


def file_format(path: Path) -> str:
    """ "csv" or "jsonl", from the file name."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return "csv"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    raise ValueError(f"{path.name}: name the file .csv or .jsonl")


def next_version(latest: str | None) -> str:
    """One patch above `latest` (a pre-release becomes its release), or 1.0.0."""
    if not latest:
        return "1.0.0"
    match = SEMVER.match(latest)
    if match is None:
        raise ValueError(f"cannot tell the version after {latest!r}; pass a version")
    major, minor, patch, pre = match.group(1), match.group(2), int(match.group(3)), match.group(4)
    return f"{major}.{minor}.{patch if pre else patch + 1}"
