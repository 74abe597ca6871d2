"""A version from a file of rows in one call (`assay run --rows FILE`).

The file is read once to check it and hash its rows: the same rows find the version they made
before, whatever the file's format or key order. New rows are imported into the set's draft
(the import job's own reader and checks, run in this process) and committed as the next
version, all in one transaction, so a bad file leaves nothing behind: no set, no rows, no
stored upload.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePath

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils.translation import gettext as _

from assay.models import Workspace

from ..items.problems import problem_text, report_rows
from ..models import EvalSet, EvalSetImport, EvalSetVersion, ImportFormat, ImportStatus
from ..services import MAX_NAME, evalset_create, next_version, version_commit
from .jobs import _check_size, _format_of, import_configure, import_create, proposed_mapping
from .readers import FileProblem, read_csv, read_jsonl
from .run import import_claim, import_run

HASH_SCHEME = b"assay-rows-1\n"  # a future change of the canonical form starts a new scheme
MAX_PROBLEMS = 20


def evalset_version_from_rows(
    *,
    workspace: Workspace,
    user: AbstractBaseUser | None,
    upload,
    name: str = "",
    file_format: str | None = None,
) -> tuple[EvalSetVersion, bool]:
    """The version of the set `name` (default: the file's name without its extension) that
    holds exactly the rows of `upload`, a CSV or JSONL file; `(version, created)`.

    A version of that set made from the same rows (same content hash) is returned as it is.
    Otherwise the set is created when no live set has the name, the rows replace its draft
    (a field without a same-named column becomes a new column) and are committed as the next
    patch version (1.0.0 first). Bad files raise ValidationError on `file` and save nothing.
    """
    file_name = PurePath(getattr(upload, "name", "") or "rows").name
    name = (name or "").strip() or rows_set_name(file_name)
    file_format = _format_of(file_name, file_format)
    _check_rows_size(file_name, upload.size)
    digest, fields = rows_digest(upload, file_format=file_format, file_name=file_name)
    with transaction.atomic():
        evalset = _rows_set(workspace=workspace, user=user, name=name)
        found = evalset.versions.filter(content_hash=digest).order_by("created_at").first()
        if found is not None:
            return found, False
        _check_draft_free(evalset)
        job = import_create(
            evalset=evalset, user=user, upload=upload, file_format=file_format, start=False
        )
        try:
            _import_now(job, fields)
            version = version_commit(
                evalset=evalset,
                user=user,
                version=next_version(evalset),
                note=_("Rows of %(file)s") % {"file": file_name},
                inline=True,
                content_hash=digest,
            )
        except BaseException:
            default_storage.delete(job.file_path)  # the transaction drops the rest
            raise
    return version, True


def rows_set_name(file_name: str) -> str:
    """The default set name of a rows file: its name without the extension ("qa.csv" → "qa")."""
    stem = PurePath(file_name).stem.strip()
    return (stem or "rows")[:MAX_NAME]


def _check_rows_size(file_name: str, size: int) -> None:
    limit = settings.ASSAY_EVALSET_MAX_ROWS_FILE_BYTES
    if size > limit:
        raise ValidationError(
            {
                "file": _(
                    "%(name)s is %(size)s bytes; a rows file is at most %(limit)s bytes. Push a "
                    "larger set as a version first (assay evalset push) and run on it."
                )
                % {"name": file_name, "size": format(size, ","), "limit": format(limit, ",")}
            }
        )
    _check_size(file_name, size)  # the import's own limits: not empty, under the import cap


def rows_digest(upload, *, file_format: str, file_name: str) -> tuple[str, list[str]]:
    """The sha256 of the file's rows in their canonical form (`canonical_row`) and every field
    of the file in first-seen order, after checking that every line reads, that there is at
    least one row and one field, and that there are at most `ASSAY_COMMIT_INLINE_ROWS` rows."""
    digest, fields, count, problems = hashlib.sha256(HASH_SCHEME), {}, 0, []
    limit = settings.ASSAY_COMMIT_INLINE_ROWS
    for line, record, found in _records(upload, file_format):
        if found:
            problems += [_line_problem(line, column, problem) for column, problem in found]
            if len(problems) >= MAX_PROBLEMS:
                break
            continue
        count += 1
        if count > limit:
            raise ValidationError({"file": _too_many_rows(file_name, limit)})
        fields.update(dict.fromkeys(record))
        digest.update(canonical_row(record))
    upload.seek(0)
    if problems:
        raise ValidationError({"file": problems[:MAX_PROBLEMS]})
    if not count:
        raise ValidationError({"file": _("%(name)s has no rows.") % {"name": file_name}})
    if not fields.keys() - {"item_id"}:
        raise ValidationError(
            {"file": _("%(name)s has no columns: its rows have no fields.") % {"name": file_name}}
        )
    return digest.hexdigest(), list(fields)


def canonical_row(record: dict) -> bytes:
    """A row as the import stores it, as bytes that do not depend on the file: keys sorted,
    empty cells (absent, null, "") left out, `item_id` (which imports ignore) left out."""
    kept = {k: v for k, v in record.items() if k != "item_id" and v is not None and v != ""}
    text = json.dumps(kept, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"


def _records(upload, file_format: str):
    upload.seek(0)
    try:
        if file_format == ImportFormat.CSV:
            _fields, records, _lines = read_csv(upload)
        else:
            records, _lines = read_jsonl(upload)
        yield from records
    except FileProblem as exc:
        problem = _line_problem(exc.line, exc.column, exc.problem)
        raise ValidationError({"file": [problem]}) from None


def _line_problem(line: int, column: str, problem) -> str:
    if column:
        return _("line %(line)s, column %(column)s: %(problem)s") % {
            "line": line,
            "column": column,
            "problem": problem_text(problem),
        }
    return _("line %(line)s: %(problem)s") % {"line": line, "problem": problem_text(problem)}


def _too_many_rows(file_name: str, limit: int) -> str:
    return _(
        "%(name)s has more than %(limit)s rows; a rows file is imported inside the request. "
        "Push a larger set as a version first (assay evalset push) and run on it."
    ) % {"name": file_name, "limit": format(limit, ",")}


def _rows_set(*, workspace: Workspace, user, name: str) -> EvalSet:
    """The live set named `name`, locked (two runs of one new file make one version), or a new
    one; a set another request created meanwhile is found on the second look."""
    for _attempt in range(2):
        found = (
            EvalSet.objects.select_for_update()
            .filter(workspace=workspace, name=name, deleted_at__isnull=True)
            .first()
        )
        if found is not None:
            return found
        try:
            return evalset_create(workspace=workspace, user=user, name=name)
        except ValidationError as exc:  # taken meanwhile, or a name that is not allowed
            if "name" not in getattr(exc, "error_dict", {}) or len(name) > MAX_NAME:
                raise
    raise ValidationError({"name": _("The set %(name)r could not be created.") % {"name": name}})


def _check_draft_free(evalset: EvalSet) -> None:
    """Refuse to replace a draft that holds changes no version has: they would be lost."""
    if evalset.draft_changed:
        raise ValidationError(
            {
                "name": _(
                    "The draft of %(name)r has changes that are not committed as a version; "
                    "commit or undo them first, or name another set."
                )
                % {"name": evalset.name}
            }
        )


def _import_now(job: EvalSetImport, fields: list[str]) -> None:
    """Map every field (new ones become columns), run the import here, and turn a failed run
    into a ValidationError with its first problems."""
    job.fields = fields  # all of them: the job read only the first lines of a JSONL file
    job.save(update_fields=["fields"])
    # every field gets a column: its own name, or a readable one (`问题` → input, see naming)
    mapping, new_columns = proposed_mapping(job, add_columns=True)
    try:
        import_configure(
            job=job, mapping=mapping, new_columns=new_columns, replace=True, enqueue=False
        )
    except ValidationError as exc:  # the file's fields against the set's columns
        raise ValidationError({"file": exc.messages}) from None
    ran = import_run(job=import_claim(import_id=job.pk))
    if ran.status != ImportStatus.COMPLETED:
        problems = [
            _line_problem(e["line"], e["column"], e["problem"])
            for e in report_rows(ran.errors, MAX_PROBLEMS)
        ]
        raise ValidationError({"file": problems or [ran.message_shown]})
