"""The converters' problems in the reader's language.

`content` and `rows` are pure Python and raise `Problem`s: a message id (marked with `N_`) and
its named parameters, English as text. A request translates one where it shows it
(`problem_text`); an import run in a worker stores `stored_problem` (the English text as
`problem`, and `msgid` and `params`) and the report is translated when it is read
(`report_rows`), so members reading in another language see theirs. Entries stored before
message ids existed hold the text only and are shown as they are.
"""

from __future__ import annotations

from django.utils.translation import gettext, ngettext

from .cells import Problem


def problem_text(problem) -> str:
    """A problem as text in the active language; plain text stays as it is."""
    return problem.render(gettext, ngettext) if isinstance(problem, Problem) else str(problem)


def stored_problem(line: int, column: str, problem) -> dict:
    """One entry of an import's report, {line, column, problem[, msgid, params]}."""
    entry = {"line": line, "column": column, "problem": str(problem)}
    if isinstance(problem, Problem):
        entry.update(problem.as_json())
    return entry


def report_rows(errors: list[dict], limit: int | None = None) -> list[dict]:
    """A stored report's entries as {line, column, problem}, the problem in the active
    language when it was stored with its message id."""
    return [
        {"line": e.get("line"), "column": e.get("column", ""), "problem": _entry_text(e)}
        for e in errors[:limit]
    ]


def _entry_text(entry: dict) -> str:
    if not entry.get("msgid"):
        return entry.get("problem", "")
    try:
        return Problem.from_json(entry).render(gettext, ngettext)
    except (KeyError, TypeError, ValueError):  # params that no longer fit the message
        return entry.get("problem", "")


def stored_message(message) -> dict | None:
    """An import's message as stored beside its English text (`EvalSetImport.message_params`):
    the message id, its parameters and, with a count, the plural and n; None for plain text."""
    return message.as_json() if isinstance(message, Problem) else None


def message_text(text: str, stored: dict | None) -> str:
    """An import's message in the active language; the stored English text when it was stored
    without its message id (before `message_params`) or its parameters no longer fit."""
    if not stored or not stored.get("msgid"):
        return text
    try:
        return Problem.from_json(stored).render(gettext, ngettext)
    except (KeyError, TypeError, ValueError):
        return text
