"""Running an import job: stream the file, check each row, write batches, then swap in.

Rows are written as they pass, tagged with the job; they stay invisible (see
`models.draft_filter`) until one short transaction marks the job completed. All-or-nothing mode
stops writing at the first bad row but keeps reading, so the report lists every problem (up to
`MAX_ERRORS`); a failed job's staged rows are then deleted.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from assay.jobs import job_claim
from assay.vocabulary import EventType
from notifications.services import event_emit

from ..items.cells import N_, Nn_, Problem
from ..items.media import uri_checker
from ..items.problems import stored_message, stored_problem
from ..items.rows import RowBuilder, new_item_ids
from ..models import EvalSet, EvalSetImport, EvalSetItem, ImportFormat, ImportStatus, draft_filter
from ..models import dumps as json_dumps
from ..services import next_position
from .readers import FileProblem, read_csv, read_jsonl
from .writer import ItemWriter, SetDeleted

logger = logging.getLogger(__name__)

BATCH = 5000
MAX_ERRORS = 1000

Progress = Callable[[EvalSetImport], None]


def import_claim(*, import_id: int) -> EvalSetImport | None:
    """Move a queued job to running; None when someone else has it (or it already ran).

    A job left `running` for longer than the task time limit lost its worker; it is claimed
    again (its staged rows are dropped when the new run starts).
    """
    return job_claim(
        model=EvalSetImport, pk=import_id, queued=ImportStatus.QUEUED, running=ImportStatus.RUNNING
    )


def import_run(*, job: EvalSetImport, on_progress: Progress | None = None) -> EvalSetImport:
    """Execute a claimed job to `completed` or `failed`; never leaves rows half-visible."""
    run = _Run(job, on_progress)
    try:
        run.execute()
    except SetDeleted:
        run.fail(
            Problem(N_("The evaluation set was deleted during the import; nothing was imported."))
        )
    except FileProblem as exc:
        run.report(exc.line, [(exc.column, exc.problem)])
        run.fail(
            Problem(
                N_("The file cannot be read: line %(line)s: %(p)s"),
                {"line": exc.line, "p": exc.problem},
            )
        )
    except Exception as exc:  # the job must end failed, whatever broke
        logger.exception("import %s failed", job.pk)
        error = f"{type(exc).__name__}: {exc}"
        run.fail(Problem(N_("The import stopped: %(error)s"), {"error": error}))
    job.refresh_from_db()
    return job


class _Run:
    """The state of one run; `scan` is the hot loop, so it works on locals."""

    def __init__(self, job: EvalSetImport, on_progress: Progress | None):
        self.job = job
        self.on_progress = on_progress
        self.done = self.imported = self.failed = self.error_count = 0
        self.errors: list[dict] = []
        self.writing = True
        self.lines = None

    def execute(self) -> None:
        EvalSetItem.objects.filter(import_job=self.job).delete()  # a lost earlier run's rows
        evalset = self.job.evalset
        if evalset.deleted_at is not None:
            raise SetDeleted
        columns = evalset.columns + self.job.new_columns
        try:
            builder = RowBuilder(columns, self.job.mapping, uri_checker(evalset.workspace))
        except ValueError as exc:  # the set's columns changed after the mapping was made
            problem = getattr(exc, "problem", str(exc))
            again = Problem(
                gettext_noop("%(problem)s; make the mapping again"), {"problem": problem}
            )
            raise FileProblem(1, "", again) from None
        self.writer = ItemWriter(evalset_id=evalset.pk, import_id=self.job.pk)
        with default_storage.open(self.job.file_path, "rb") as binary:
            records = self._records(binary)
            self.scan(records, builder, next_position(evalset))
        if self.error_count and not self.job.skip_bad_rows:
            singular, plural = Nn_(
                "Nothing was imported: %(n)s problem found. Fix it, or import again with "
                "“skip bad rows”.",
                "Nothing was imported: %(n)s problems found. Fix them, or import again with "
                "“skip bad rows”.",
            )
            n = self.error_count
            self.fail(Problem(singular, {"n": n}, plural=plural, n=n))
        else:
            self.complete()

    def _records(self, binary):
        if self.job.format == ImportFormat.CSV:
            _fields, records, self.lines = read_csv(binary, self.job.encoding)
        else:
            records, self.lines = read_jsonl(binary, self.job.encoding)
        return records

    def scan(self, records, builder: RowBuilder, position: int) -> None:
        build, dumps, skip = builder.build, json_dumps, self.job.skip_bad_rows
        batch: list[tuple] = []
        ids: list = []
        for line, record, problems in records:
            self.done += 1
            if record is not None:
                row, problems = build(record)
            if problems:
                self.report(line, problems)
                if not skip:
                    self.writing = False
                    if self.error_count >= MAX_ERRORS:
                        break
                continue
            if not self.writing:
                if self.done % BATCH == 0:
                    self.progress()
                continue
            if not batch:
                ids = new_item_ids(BATCH)
            batch.append(
                (
                    ids[len(batch)],
                    position,
                    dumps(row.data),
                    dumps(row.tags),
                    row.human_verdict,
                    row.label,
                    row.search_text,
                )
            )
            position += 1
            if len(batch) >= BATCH:
                self.flush(batch)
                batch = []
        if batch and self.writing:
            self.flush(batch)

    def flush(self, batch: list[tuple]) -> None:
        self.imported += len(batch)
        self.writer.write(batch, after=self.progress)

    def report(self, line: int, problems: list[tuple[str, str]]) -> None:
        """Problems are stored with their message id (see `items.problems`): the worker has no
        reader's language, the report page translates them."""
        self.failed += 1
        for column, problem in problems:
            self.error_count += 1
            if len(self.errors) < MAX_ERRORS:
                self.errors.append(stored_problem(line, column, problem))

    def estimate_total(self) -> int:
        read = self.lines.bytes_read if self.lines else 0
        if not read or not self.done:
            return 0
        return max(self.done, int(self.job.file_size * self.done / read))

    def progress(self) -> None:
        fields = {
            "rows_done": self.done,
            "rows_total": self.estimate_total(),
            "rows_imported": self.imported if self.writing else 0,
            "rows_failed": self.failed,
            "error_count": self.error_count,
        }
        EvalSetImport.objects.filter(pk=self.job.pk).update(**fields)
        if self.on_progress:
            for name, value in fields.items():
                setattr(self.job, name, value)
            self.on_progress(self.job)

    def complete(self) -> None:
        """The swap: one transaction makes the staged rows the draft's."""
        job = self.job
        with transaction.atomic():
            evalset = EvalSet.objects.select_for_update().get(pk=job.evalset_id)
            if evalset.deleted_at is not None:
                raise SetDeleted
            evalset.columns = _merged_columns(evalset.columns, job.new_columns)
            if job.replace:
                old = EvalSetItem.objects.filter(draft_filter(), evalset=evalset)
                old.exclude(import_job=job).delete()
            message = ""
            if self.error_count:
                singular, plural = Nn_(
                    "%(n)s bad row was skipped; see the error report.",
                    "%(n)s bad rows were skipped; see the error report.",
                )
                message = Problem(singular, {"n": self.failed}, plural=plural, n=self.failed)
            self._finish(ImportStatus.COMPLETED, message, imported=self.imported)
            evalset.draft_changed = True
            evalset.save(update_fields=["columns", "draft_changed", "updated_at"])

    def fail(self, message: Problem) -> None:
        self._finish(ImportStatus.FAILED, message, imported=0)
        EvalSetItem.objects.filter(import_job=self.job).delete()

    def _finish(self, status: str, message: Problem | str, *, imported: int) -> None:
        """`message` is stored as English text and, to be translated when read, as its message
        id and parameters (`message_params`, see `items.problems.message_text`)."""
        EvalSetImport.objects.filter(pk=self.job.pk).update(
            status=status,
            message=str(message),
            message_params=stored_message(message),
            rows_done=self.done,
            rows_total=self.done,
            rows_imported=imported,
            rows_failed=self.failed,
            errors=self.errors,
            error_count=self.error_count,
            finished_at=timezone.now(),
        )
        self._announce(status, str(message), imported=imported)

    def _announce(self, status: str, message: str, *, imported: int) -> None:
        """Tell the workspace's webhooks (sent once the finishing transaction commits)."""
        job = self.job
        evalset = EvalSet.objects.filter(pk=job.evalset_id).select_related("workspace").first()
        if evalset is None:  # gone with its imports
            return
        finished = status == ImportStatus.COMPLETED
        event_emit(
            workspace=evalset.workspace,
            event_type=EventType.IMPORT_FINISHED if finished else EventType.IMPORT_FAILED,
            data={
                "import": str(job.public_id),
                "evalset": str(evalset.public_id),
                "evalset_name": evalset.name,
                "file_name": job.file_name,
                "rows_imported": imported,
                "rows_failed": self.failed,
                "message": message,
            },
        )


def _merged_columns(columns: list[dict], new_columns: list[dict]) -> list[dict]:
    names = {c["name"]: c for c in columns}
    merged = list(columns)
    for column in new_columns:
        existing = names.get(column["name"])
        if existing is None:
            merged.append(column)
        elif existing["content_type"] != column["content_type"]:
            raise FileProblem(
                1,
                column["name"],
                Problem(
                    gettext_noop("column %(name)s was added meanwhile with another type"),
                    {"name": repr(column["name"])},
                ),
            )
    return merged
