"""Trace → evalset: production spans become rows of an evaluation set's draft.

A selection (trace ids, span ids, session ids, or the list's filters) names the spans; each
row is made from one span (a trace's root, or every LLM span) or from one session (one
Conversation row: its traces' turns in order). A mapping {column: span field} says what goes
where (`SPAN_FIELDS`); it is checked against the set's columns and their content types before
anything is read. Rows go into the draft through `evalsets.services.items_bulk` (the draft's
own checks, all or nothing), each with its `source` (the span or session it came from). A row
whose content (its cells, hashed) is already in the draft, or earlier in the same call, is
skipped and counted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.vocabulary import ContentType, field_synonym
from evalsets.items.cells import CellError
from evalsets.items.content import content_from_value
from evalsets.items.media import uri_checker
from evalsets.items.problems import problem_text
from evalsets.models import EvalSet, EvalSetItem, draft_filter
from evalsets.services import items_bulk

from . import to_evalset_rows as rows

TEXT, CONVERSATION = ContentType.TEXT.value, ContentType.CONVERSATION.value
HASH_SCHEME = b"assay-row-content-1\n"


class RowFrom:
    """Which spans become rows: each trace's root, or every LLM span."""

    ROOT = "root"
    LLM = "llm"
    CHOICES = (ROOT, LLM)


# span field → the content type it gives (Text fields fit Text columns only, and so on)
SPAN_FIELDS = {
    "input": TEXT,
    "output": TEXT,
    "messages": CONVERSATION,
    "input_messages": CONVERSATION,
    "trajectory": TEXT,
    "model": TEXT,
    "name": TEXT,
    "service": TEXT,
    "error": TEXT,
    "session_id": TEXT,
    "user_id": TEXT,
}


@dataclass
class Selection:
    """What to turn into rows: trace ids, span ids, session ids, or the list's filters."""

    trace_ids: list[str] = field(default_factory=list)
    span_ids: list[str] = field(default_factory=list)
    session_ids: list[str] = field(default_factory=list)
    filters: dict | None = None


@dataclass
class ToEvalsetReport:
    added: list[EvalSetItem]
    skipped_duplicates: int
    empty: int  # rows with no mapped field filled (nothing to add)


def default_mapping(evalset: EvalSet) -> dict[str, str]:
    """The span field each column would take by its name and type (`input` for a column named
    `question`, `messages` for a Conversation column, …); columns with no match are left out."""
    mapping = {}
    for column in evalset.columns:
        found = _default_field(column["name"], column["content_type"])
        if found:
            mapping[column["name"]] = found
    return mapping


def _default_field(name: str, content_type: str) -> str | None:
    if content_type == CONVERSATION:
        return "messages"
    if content_type != TEXT:
        return None
    canonical = field_synonym(name) or name.lower()
    by_name = {"reference_output": "output", "actual_output": "output", "input": "input"}
    if canonical in by_name:
        return by_name[canonical]
    return canonical if canonical in SPAN_FIELDS and SPAN_FIELDS[canonical] == TEXT else None


def traces_to_evalset(
    *,
    workspace: Workspace,
    user: AbstractBaseUser | None,
    evalset: EvalSet,
    selection: Selection,
    mapping: dict[str, str],
    row_from: str = RowFrom.ROOT,
) -> ToEvalsetReport:
    """Add rows made from the selected spans to `evalset`'s draft; see the module's docstring.

    ValidationError names the column, field or selection at fault, and nothing is saved. The
    set must be the workspace's (callers look it up scoped); spans of other workspaces are
    never read, so foreign ids select nothing.
    """
    _check_evalset(workspace, evalset)
    _check_mapping(evalset, mapping, row_from)
    sources = rows.selected_sources(workspace=workspace, selection=selection, row_from=row_from)
    if not sources:
        raise ValidationError({"selection": _("Nothing selected: no spans match.")})
    built = [(_row_data(evalset, mapping, src), src.link) for src in sources]
    filled = [(data, link) for data, link in built if data]
    with transaction.atomic():
        EvalSet.objects.select_for_update().filter(pk=evalset.pk).first()  # one writer a set
        fresh, skipped = _without_duplicates(evalset, filled)
        result = items_bulk(
            evalset=evalset,
            create=[{"data": data} for data, _ in fresh],
            sources=[link for _, link in fresh],
        )
    return ToEvalsetReport(result["created"], skipped, len(built) - len(filled))


def _check_evalset(workspace: Workspace, evalset: EvalSet) -> None:
    if evalset.workspace_id != workspace.pk:
        raise ValidationError({"evalset": _("No such evaluation set in this workspace.")})
    if evalset.deleted_at is not None:
        raise ValidationError({"evalset": _("This evaluation set is deleted.")})


def _check_mapping(evalset: EvalSet, mapping: dict, row_from: str) -> None:
    """Every column is the set's, every field a span field of the column's content type."""
    errors: dict[str, list[str]] = {}
    if row_from not in RowFrom.CHOICES:
        errors["row_from"] = [_("Rows come from %(choices)s.") % {"choices": "root, llm"}]
    if not isinstance(mapping, dict) or not mapping:
        errors["mapping"] = [_("Map at least one column to a span field.")]
        raise ValidationError(errors)
    types = {c["name"]: c["content_type"] for c in evalset.columns}
    for column, span_field in mapping.items():
        problem = _mapping_problem(types, column, span_field)
        if problem:
            errors[f"mapping.{column}"] = [problem]
    if errors:
        raise ValidationError(errors)


def _mapping_problem(types: dict, column, span_field) -> str | None:
    if column not in types:
        return _("The set has no column %(column)r.") % {"column": str(column)}
    if span_field not in SPAN_FIELDS:
        return _("%(field)r is not a span field; the fields are %(fields)s.") % {
            "field": str(span_field),
            "fields": ", ".join(SPAN_FIELDS),
        }
    if SPAN_FIELDS[span_field] != types[column]:
        return _(
            "Column %(column)r holds %(column_type)s; the span field %(field)r is %(field_type)s."
        ) % {
            "column": column,
            "column_type": types[column],
            "field": span_field,
            "field_type": SPAN_FIELDS[span_field],
        }
    return None


def _row_data(evalset: EvalSet, mapping: dict, source) -> dict:
    """{column: value} of the span fields that are filled (empty fields are left out)."""
    check_uri = uri_checker(evalset.workspace)
    data = {}
    types = {c["name"]: c["content_type"] for c in evalset.columns}
    for column, span_field in mapping.items():
        value = source.fields.get(span_field)
        if not value:
            continue
        try:
            data[column] = content_from_value(value, types[column], check_uri)
        except CellError as exc:
            where = source.link.get("span_id") or source.link.get("session_id")
            problem = problem_text(exc.problem)
            raise ValidationError(
                {
                    f"mapping.{column}": [
                        _("%(field)s of %(where)s does not fit: %(problem)s")
                        % {"field": span_field, "where": where, "problem": problem}
                    ]
                }
            ) from None
    return data


def content_hash(data: dict) -> str:
    """The sha256 of a row's cells, whatever their key order (what "the same row" means)."""
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(HASH_SCHEME + text.encode("utf-8")).hexdigest()


def _without_duplicates(evalset: EvalSet, built: list) -> tuple[list, int]:
    """The rows whose content is neither in the draft nor earlier in `built`; and how many
    were dropped. The draft's rows are read in chunks, only their cells."""
    seen = set()
    draft = EvalSetItem.objects.filter(draft_filter(), evalset=evalset).values_list("data")
    for (data,) in draft.iterator(chunk_size=2000):
        seen.add(content_hash(data))
    fresh = []
    for data, link in built:
        digest = content_hash(data)
        if digest not in seen:
            seen.add(digest)
            fresh.append((data, link))
    return fresh, len(built) - len(fresh)


MAX_TRACES = rows.MAX_TRACES
