"""Importer kinds: one module per source format, behind one interface, registered here.

An importer turns a source tool's files into Assay objects through the lower apps' own
services (evalsets, evaluators, experiments), inside the one transaction `imports.services.
import_run` opens: a problem anywhere raises `ImportProblem` and nothing is kept. What each
source grader, assertion or column became (or why not) goes into the `Report`, which the page,
the API and the client print. Nothing outside this package branches on a kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.safety.caps import cap_text

# what a stored report keeps: its report is stored and shown whole, and its lines name things
# out of the uploaded files (a suite of 100,000 tests made 100,000 lines of any length)
REPORT_LINES = 1000
REPORT_TEXT_BYTES = 2 * 1024


class ImportProblem(Exception):
    """Bad input: names the file (and where in it) and what is wrong; nothing is saved."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where, self.message = where, message


def yaml_bounded(value, *, where: str, text_chars: int):
    """`value`, as yaml.safe_load read it from `text_chars` characters, refused when it holds
    far more values than its text could: an alias repeats a node without copying it, so a few
    hundred bytes of nested aliases stand for a billion values once anything walks them, and
    an alias inside its own node never ends."""
    budget = 2 * text_chars + 10_000  # a text without aliases holds fewer values than chars
    stack = [value]
    while stack and budget >= 0:
        node = stack.pop()
        children = [*node.keys(), *node.values()] if isinstance(node, dict) else node
        if isinstance(node, list | dict):
            budget -= len(children)
            stack.extend(children[: max(budget, 0)])
        budget -= 1
    if budget < 0:
        raise ImportProblem(where, "its YAML aliases expand to far more than the file holds")
    return value


@dataclass(frozen=True)
class FileSpec:
    """A file an importer takes: its form/API field name, whether it is needed, a help text."""

    name: str
    required: bool
    help: str
    max_bytes: int = 50 * 1024 * 1024


@dataclass
class ReportLine:
    """One source thing and what it became: `became` empty and `problem` set when it was not
    mapped (listed, never silently dropped)."""

    source: str
    became: str = ""
    problem: str = ""


@dataclass
class Report:
    """What an import did, line by line, and the public ids of what it created."""

    lines: list[ReportLine] = field(default_factory=list)
    created: dict[str, list[str]] = field(default_factory=dict)

    def mapped(self, source: str, became: str) -> None:
        self.lines.append(ReportLine(source=source, became=became))

    def unmapped(self, source: str, problem: str) -> None:
        self.lines.append(ReportLine(source=source, problem=problem))

    def add_created(self, what: str, public_id) -> None:
        self.created.setdefault(what, []).append(str(public_id))

    def as_json(self) -> dict:
        """The report as stored: the first REPORT_LINES lines, each text capped, then one line
        counting the lines left out."""
        lines = [_line_capped(line) for line in self.lines[:REPORT_LINES]]
        left_out = len(self.lines) - REPORT_LINES
        if left_out > 0:
            became = f"{left_out:,} more lines were not kept (a report keeps {REPORT_LINES:,})"
            lines.append({"source": "…", "became": became, "problem": ""})
        return {"lines": lines, "created": self.created}


def _line_capped(line: ReportLine) -> dict:
    return {name: cap_text(text, REPORT_TEXT_BYTES) for name, text in vars(line).items()}


class ImporterKind:
    """The interface each source format implements."""

    name: str = ""  # the URL segment and the client's word: "openai-evals"
    label: str = ""  # shown on the page
    files: tuple[FileSpec, ...] = ()

    def run(self, *, workspace, user, files: dict[str, bytes], options: dict, report: Report):
        """Create what the files describe (through services), filling `report`. Raise
        `ImportProblem` on bad input. Runs inside the import's transaction."""
        raise NotImplementedError


KINDS: dict[str, ImporterKind] = {}


def register(kind: ImporterKind) -> ImporterKind:
    KINDS[kind.name] = kind
    return kind


def importer_get(name: str) -> ImporterKind:
    """The importer called `name`; ValueError naming the known ones otherwise."""
    try:
        return KINDS[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(KINDS)) or "none"
        raise ValueError(f"Unknown importer {name!r}; use one of: {known}.") from None


def _register_builtins() -> None:
    """The importers Assay ships, one module each (imported here: they import this module)."""
    from .datasets import DatasetImporter
    from .openai_evals import OpenAIEvalsImporter
    from .promptfoo import PromptfooImporter
    from .registry import RegistryImporter

    register(OpenAIEvalsImporter())
    register(DatasetImporter())
    register(RegistryImporter())
    register(PromptfooImporter())


_register_builtins()
