"""Creating import jobs: store the upload, read its fields, check the column mapping, queue."""

from __future__ import annotations

from collections import Counter
from itertools import islice

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils.translation import gettext as _

from assay.vocabulary import CONTENT_TYPES

from ..committing import draft_edit_check
from ..items.content import TEXT, content_type_of
from ..items.media import max_import_bytes, upload_store
from ..items.problems import problem_text
from ..items.rows import IGNORE, SPECIAL_TARGETS, column_name_problem
from ..models import EvalSet, EvalSetImport, ImportFormat, ImportStatus
from .naming import matched_targets, suggested_names
from .readers import (
    ENCODINGS,
    SNIFF_BYTES,
    FileProblem,
    encoding_guess,
    encoding_problem,
    jsonl_fields,
    jsonl_sample,
    read_csv,
)

MAX_DESCRIPTION = 500  # a column's description (a renamed header is kept there)
EXTENSIONS = {"csv": ImportFormat.CSV, "jsonl": ImportFormat.JSONL, "ndjson": ImportFormat.JSONL}


def import_create(
    *,
    evalset: EvalSet,
    user: AbstractBaseUser | None,
    upload,
    file_format: str | None = None,
    encoding: str = "utf-8",
    start: bool = True,
    **configure,
) -> EvalSetImport:
    """Store an uploaded CSV/JSONL file and create its import job.

    With `start` the job is configured at once (`configure`: `import_configure`'s mapping,
    new_columns, skip_bad_rows, replace and enqueue; without a mapping, the default by column
    name) and queued; without it the job waits in `mapping` for `import_configure` (the page
    wizard). `enqueue=False` leaves a queued job for the caller to claim and run in-process.
    """
    if configure and not start:
        raise TypeError("configure options are import_configure's: they need start=True")
    if evalset.deleted_at is not None:
        raise ValidationError({"evalset": _("This evaluation set is deleted.")})
    name = getattr(upload, "name", "") or "upload"
    file_format = _format_of(name, file_format)
    _check_size(name, upload.size)
    encoding = _checked_encoding(upload, encoding)
    stored = upload_store(workspace=evalset.workspace, upload=upload)
    try:
        fields = detect_fields(stored, file_format, encoding)
    except FileProblem as exc:
        default_storage.delete(stored)
        problem = problem_text(exc.problem)
        raise ValidationError(
            {"file": _("line %(line)s: %(problem)s") % {"line": exc.line, "problem": problem}}
        ) from None
    except BaseException:
        default_storage.delete(stored)  # nothing may outlive a request that failed
        raise
    job = EvalSetImport.objects.create(
        workspace=evalset.workspace,
        evalset=evalset,
        format=file_format,
        file_name=name[:255],
        file_path=stored,
        file_size=upload.size,
        encoding=encoding,
        fields=fields,
        created_by=user,
    )
    if start:
        try:
            import_configure(job=job, **configure)
        except ValidationError:
            job.delete()
            default_storage.delete(stored)
            raise
    return job


def _format_of(name: str, file_format: str | None) -> str:
    if file_format:
        if file_format not in ImportFormat.values:
            raise ValidationError(
                {
                    "format": _("Unknown format %(file_format)r; use csv or jsonl.")
                    % {"file_format": file_format}
                }
            )
        return file_format
    ext = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if ext not in EXTENSIONS:
        raise ValidationError(
            {
                "file": _(
                    "Cannot tell the format of %(name)r: name it .csv or .jsonl, or say which."
                )
                % {"name": name}
            }
        )
    return EXTENSIONS[ext]


def _check_size(name: str, size: int) -> None:
    if size > max_import_bytes():
        raise ValidationError(
            {
                "file": _(
                    "%(name)s is %(size)s bytes; imports are at most %(max_import_bytes)s bytes."
                )
                % {
                    "name": name,
                    "size": format(size, ","),
                    "max_import_bytes": format(max_import_bytes(), ","),
                }
            }
        )
    if size == 0:
        raise ValidationError({"file": _("%(name)s is empty.") % {"name": name}})


def _checked_encoding(upload, encoding: str) -> str:
    """The chosen encoding, when the file's start reads in it; else one file-level error with
    a guess (not one error per line)."""
    if encoding not in ENCODINGS:
        raise ValidationError(
            {
                "encoding": _("The encoding is one of %(encodings)s.")
                % {"encodings": ", ".join(ENCODINGS)}
            }
        )
    upload.seek(0)
    sample = upload.read(SNIFF_BYTES)
    upload.seek(0)
    if problem := encoding_problem(sample, encoding):
        raise ValidationError({"file": problem_text(problem)})
    return encoding


def upload_encoding_guess(*, upload, encoding: str) -> str:
    """The encoding an upload refused for its encoding seems to be in ('' when it reads, or
    when nothing else fits), for the form to offer on the next try."""
    if encoding not in ENCODINGS:
        return ""
    upload.seek(0)
    sample = upload.read(SNIFF_BYTES)
    upload.seek(0)
    return encoding_guess(sample, encoding)


def detect_fields(path: str, file_format: str, encoding: str = "utf-8") -> list[str]:
    """The header of a CSV file, or the keys of a JSONL file's first lines."""
    with default_storage.open(path, "rb") as binary:
        if file_format == ImportFormat.CSV:
            fields, _records, _lines = read_csv(binary, encoding)
            return fields
        fields = jsonl_fields(binary, encoding=encoding)
    if not fields:
        raise FileProblem(1, "", _("no JSON object found in the first lines"))
    return fields


def guess_content_type(job: EvalSetImport, field: str) -> str:
    """A new column's type: the content_type of JSONL content objects (Conversation for arrays
    of messages), else Text."""
    if job.format != ImportFormat.JSONL:
        return TEXT
    with default_storage.open(job.file_path, "rb") as binary:
        for record in jsonl_sample(binary, encoding=job.encoding):
            if guessed := content_type_of(record.get(field)):
                return guessed
    return TEXT


def proposed_mapping(job: EvalSetImport, *, add_columns: bool = False) -> tuple[dict, list[dict]]:
    """The mapping the wizard starts from: fields fill columns and row fields of the same name
    or a synonym (`naming.matched_targets`). A set without columns gets a new column for every
    other field, and so does any set with `add_columns`, named as `column_names` suggests."""
    evalset = job.evalset
    mapping = matched_targets(job.fields, evalset.column_names)
    new_columns = []
    if add_columns or not evalset.columns:
        names = column_names(job)
        for field in job.fields:
            if field not in mapping:
                mapping[field] = names[field]
                column = new_column(names[field], field, guess_content_type(job, field))
                new_columns.append(column)
    return mapping, new_columns


def column_names(job: EvalSetImport) -> dict[str, str]:
    """{field: the name a new column made of it would get} (ASCII: see `naming`)."""
    return suggested_names(job.fields, job.evalset.column_names)


def new_column(name: str, field: str, content_type: str) -> dict:
    """A new column for `field`; a renamed header (`问题` → `input`) is kept as its
    description, so the set still says what the column was called in the file."""
    column = {"name": name, "content_type": content_type}
    if name != field:
        column["description"] = field
    return column


def import_configure(
    *,
    job: EvalSetImport,
    mapping: dict | None = None,
    new_columns: list[dict] | None = None,
    skip_bad_rows: bool = False,
    replace: bool = False,
    add_columns: bool = False,
    enqueue: bool = True,
) -> EvalSetImport:
    """Check the mapping against the set's columns and the file's fields, then queue the job.

    Without a mapping the proposed one is used; `add_columns` makes every field it leaves
    unmatched a new column (what `assay evalset push` asks for) instead of an error."""
    if job.status != ImportStatus.MAPPING:
        raise ValidationError(
            {"status": _("This import is already %(status)s.") % {"status": job.status}}
        )
    if mapping is None and new_columns is None:
        mapping, new_columns = proposed_mapping(job, add_columns=add_columns)
    elif add_columns:
        raise ValidationError(
            {"add_columns": _("add_columns applies only when no mapping is given.")}
        )
    mapping, new_columns = mapping or {}, new_columns or []
    new_columns = _checked_new_columns(job.evalset, new_columns)
    _check_mapping(job, mapping, new_columns)
    job.mapping, job.new_columns = mapping, new_columns
    job.skip_bad_rows, job.replace = bool(skip_bad_rows), bool(replace)
    job.status = ImportStatus.QUEUED
    with transaction.atomic():
        draft_edit_check(evalset=job.evalset)  # a commit copying the draft locks it
        job.save(update_fields=["mapping", "new_columns", "skip_bad_rows", "replace", "status"])
        if enqueue:
            transaction.on_commit(lambda: _enqueue(job.pk))
    return job


def _enqueue(job_id: int) -> None:
    from ..tasks import run_import

    run_import.apply_async(args=[job_id], queue="default")


def _checked_new_columns(evalset: EvalSet, new_columns) -> list[dict]:
    if not isinstance(new_columns, list):
        raise ValidationError(
            {"new_columns": [_("new_columns is a list of {name, content_type}.")]}
        )
    cleaned, taken = [], set(evalset.column_names)
    for column in new_columns:
        cleaned.append(_checked_new_column(column, taken))
        taken.add(cleaned[-1]["name"])
    return cleaned


def _checked_new_column(column, taken: set[str]) -> dict:
    """{name, content_type, description, required: False}, or the first problem of it."""
    column = column if isinstance(column, dict) else {}
    name = column.get("name")
    content_type = column.get("content_type", TEXT)
    description = column.get("description") or ""
    problem = column_name_problem(name)
    problem = problem and problem_text(problem)
    if problem is None and name in taken:
        problem = _("column %(name)r already exists") % {"name": name}
    if problem is None and content_type not in CONTENT_TYPES:
        problem = _("content_type of %(name)r must be one of %(content_types)s") % {
            "name": name,
            "content_types": ", ".join(CONTENT_TYPES),
        }
    if problem is None and not isinstance(description, str):
        problem = _("the description of %(name)r must be text") % {"name": name}
    if problem:
        raise ValidationError({"new_columns": [problem]})
    return {
        "name": name,
        "content_type": content_type,
        "description": description[:MAX_DESCRIPTION],
        "required": False,
    }


def _check_mapping(job: EvalSetImport, mapping, new_columns: list[dict]) -> None:
    if not isinstance(mapping, dict):
        raise ValidationError({"mapping": [_("mapping is an object {file field: target}.")]})
    # Every step is a dict or set lookup: the cost stays linear in the number of fields.
    columns = {c["name"]: c for c in job.evalset.columns + new_columns}
    problems = []
    unmapped = [f for f in job.fields if f not in mapping]
    for field in unmapped:
        problems.append(
            _(
                "line 1, column %(field)r: unknown column %(field)r; map it to a column of "
                "the set or choose to ignore it"
            )
            % {"field": field}
        )
    targets = Counter(t for t in mapping.values() if isinstance(t, str) and t != IGNORE)
    for field, target in mapping.items():
        if not isinstance(target, str) or (
            target not in columns and target not in SPECIAL_TARGETS and target != IGNORE
        ):
            problems.append(
                _("field %(field)r maps to %(target)r, which is not a column of the set")
                % {"field": field, "target": target}
            )
        elif target != IGNORE and targets[target] > 1:
            problems.append(_("more than one field maps to %(target)r") % {"target": target})
    for column in columns.values():
        if column.get("required") and column["name"] not in targets:
            problems.append(
                _("column %(name)r is required but no field maps to it") % {"name": column["name"]}
            )
    unused = [c["name"] for c in new_columns if c["name"] not in targets]
    problems += [
        _("new column %(name)r has no field mapped to it") % {"name": name} for name in unused
    ]
    problems += _no_column_problem(job.evalset.column_names, targets, columns)
    if problems:
        raise ValidationError({"mapping": list(dict.fromkeys(problems))})


def _no_column_problem(existing: list[str], targets, columns: dict) -> list[str]:
    """An import that would store no cell is refused: before, a file whose every field was
    ignored "completed" with rows holding nothing."""
    if existing and not any(target in existing for target in targets):
        names = ", ".join(existing[:10])
        return [
            _(
                "no field of the file maps to a column of the set (%(names)s); map at least "
                "one, or every imported row would be empty there"
            )
            % {"names": names}
        ]
    if not any(target in columns for target in targets):
        return [
            _(
                "no field of the file goes to a column, so every imported row would be empty; "
                "make at least one field a new column (and give it a name)"
            )
        ]
    return []


def import_limits() -> dict:
    """What a file may hold, to say before anyone uploads one."""
    from django.conf import settings

    from ..items.cells import TEXT_CELL_CAP
    from .readers import MAX_FIELDS, MAX_HEADER_BYTES

    return {
        "file_mb": settings.ASSAY_EVALSET_MAX_IMPORT_BYTES // 2**20,
        "cell_kb": TEXT_CELL_CAP // 1024,
        "fields": MAX_FIELDS,
        "header_kb": MAX_HEADER_BYTES // 1024,
    }


def import_retry_skipping(*, job: EvalSetImport, user: AbstractBaseUser | None) -> EvalSetImport:
    """Import a failed job's file again with the same mapping, skipping the bad rows: a new
    job on the same stored upload (nothing to upload again)."""
    if job.status != ImportStatus.FAILED or job.skip_bad_rows:
        raise ValidationError(
            {"status": _("Only an import that failed on bad rows can be retried.")}
        )
    if job.evalset.deleted_at is not None:
        raise ValidationError({"evalset": _("This evaluation set is deleted.")})
    existing = set(job.evalset.column_names)
    retry = EvalSetImport.objects.create(
        workspace=job.workspace,
        evalset=job.evalset,
        format=job.format,
        file_name=job.file_name,
        file_path=job.file_path,
        file_size=job.file_size,
        encoding=job.encoding,
        fields=job.fields,
        created_by=user,
    )
    return import_configure(
        job=retry,
        mapping=job.mapping,
        # columns a failed run may already have added are existing ones now
        new_columns=[c for c in job.new_columns if c["name"] not in existing],
        skip_bad_rows=True,
        replace=job.replace,
    )


PREVIEW_ROWS = 5


def import_preview(*, job: EvalSetImport, mapping: dict, new_columns: list[dict]) -> dict:
    """The file's first rows as this mapping would store them: {"columns", "rows": [{"line",
    "cells": {column: text}, "problems"}]}; a mapping that does not fit gives its problem."""
    from ..items.media import uri_checker
    from ..items.rows import RowBuilder
    from .readers import read_jsonl

    columns = job.evalset.columns + [{**c, "required": False} for c in new_columns]
    try:
        builder = RowBuilder(columns, mapping, uri_checker(job.workspace))
    except ValueError as exc:
        return {"columns": [], "rows": [], "problem": problem_text(getattr(exc, "problem", exc))}
    with default_storage.open(job.file_path, "rb") as binary:
        if job.format == ImportFormat.CSV:
            _fields, records, _lines = read_csv(binary, job.encoding)
        else:
            records, _lines = read_jsonl(binary, job.encoding)
        rows = [_preview_row(builder, *r) for r in islice(records, PREVIEW_ROWS)]
    shown = [c["name"] for c in columns if c["name"] in set(mapping.values())]
    return {"columns": shown, "rows": rows, "problem": ""}


def _preview_row(builder, line, record, problems) -> dict:
    from ..items.content import content_text

    if record is not None:
        row, problems = builder.build(record)
        if row is not None:
            cells = {name: content_text(cell)[:200] for name, cell in row.data.items()}
            return {"line": line, "cells": cells, "problems": []}
    shown = [f"{c or 'row'}: {problem_text(p)}" for c, p in problems]
    return {"line": line, "cells": {}, "problems": shown}
