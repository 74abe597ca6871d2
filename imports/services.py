"""Running an import: all or nothing, once per content; large files on a worker."""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from datetime import timedelta

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from assay.jobs import job_claim
from assay.safety.caps import ERROR_BYTES, cap_text
from assay.vocabulary import EventType
from notifications.services import event_emit

from .kinds import ImportProblem, Report, importer_get
from .models import UNFAILED, ImportRun, ImportStatus

logger = logging.getLogger(__name__)


def content_hash(*, kind: str, files: dict[str, bytes], options: dict) -> str:
    """The import's identity: its importer, each file's bytes under its field, the options."""
    digest = hashlib.sha256(kind.encode())
    for name in sorted(files):
        digest.update(b"\0" + name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    digest.update(json.dumps(options, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def uploads_read(*, kind: str, uploads: dict) -> dict[str, bytes]:
    """The uploaded files' bytes by field, each read to one byte past its FileSpec's limit
    (`import_run` then names the file as too large): an upload of gigabytes is never held in
    memory whole. A field the importer does not take is read to one byte (it is refused)."""
    limits = {spec.name: spec.max_bytes for spec in importer_get(kind).files}
    return {name: upload.read(limits.get(name, 0) + 1) for name, upload in uploads.items()}


def import_run(
    *,
    workspace,
    user,
    kind: str,
    files: dict[str, bytes],
    file_names: dict[str, str] | None = None,
    options: dict | None = None,
    queue_over: int | None = None,
) -> tuple[ImportRun, bool]:
    """Import `files` with the importer `kind`: (the import, whether it is new). Files that
    were imported, or are being imported, return that import. A problem raises ImportProblem
    after recording a failed import (with its message) and keeping nothing else.

    With `queue_over`, files larger than that in all are stored and left `queued` for a worker
    (`import_execute`), so that no request waits on a large import."""
    importer = importer_get(kind)
    options = options or {}
    _check_options(options)
    _check_files(importer, files)
    identity = content_hash(kind=kind, files=files, options=options)
    same = ImportRun.objects.filter(workspace=workspace, kind=kind, content_hash=identity)
    earlier = same.filter(status__in=UNFAILED).order_by("created_at").first()
    if earlier is not None:
        return earlier, False
    record = {"workspace": workspace, "kind": kind, "content_hash": identity}
    record |= {"file_names": file_names or {}, "created_by": user}
    if queue_over is not None and sum(map(len, files.values())) > queue_over:
        return _queued(record, files, options)
    return _inline(importer, ImportRun(**record), files, options)


def _inline(importer, run: ImportRun, files: dict[str, bytes], options: dict):
    """The import run in this request: (it, True); (theirs, False) when another request's
    import of the same files got there first."""
    try:
        done = _imported(importer, run, files, options)
    except ImportProblem as problem:
        _announce(_failed(run, problem))
        raise
    if done is run:
        _announce(run)
    return done, done is run


def _queued(record: dict, files: dict[str, bytes], options: dict) -> tuple[ImportRun, bool]:
    """The files stored and the import queued, (it, True); its task is sent once the row is
    committed (a broker that fails then is logged: `resume_imports` sends it later). The same
    files queued by another request at the same moment: (theirs, False)."""
    folder = f"imports/{record['workspace'].public_id.hex}/{uuid.uuid4().hex}"
    paths = {
        name: default_storage.save(f"{folder}/{name}", ContentFile(data))
        for name, data in files.items()
    }
    try:
        with transaction.atomic():
            run = ImportRun.objects.create(
                **record, status=ImportStatus.QUEUED, options=options, file_paths=paths
            )
    except IntegrityError:  # one import of these files is under way or done: theirs stands
        _files_drop(paths)
        return _same_files(record["workspace"].pk, record["kind"], record["content_hash"]), False
    except BaseException:
        _files_drop(paths)  # nothing may outlive a request that failed
        raise
    transaction.on_commit(lambda: _enqueue(run.pk), robust=True)
    return run, True


def _enqueue(run_id: int) -> None:
    from .tasks import run_import

    run_import.apply_async(args=[run_id], queue="default")


def import_execute(*, run_id: int) -> ImportRun | None:
    """Run a queued import on a worker, once: the claim's winner reads its stored files, imports
    them all or nothing, and records the outcome on the same row; the files are then deleted.
    None when someone else has it or it has run."""
    run = job_claim(
        model=ImportRun, pk=run_id, queued=ImportStatus.QUEUED, running=ImportStatus.RUNNING
    )
    if run is None:
        return None
    try:
        run = _executed(run)
    except Superseded:  # its claim ran out and another worker took the import over
        return None
    _files_drop(run.file_paths)
    _announce(run)
    return run


class Superseded(Exception):
    """A worker's claim on an import was taken over (it ran past the claim's time): what it
    made is rolled back, and its outcome is not recorded."""


def _executed(run: ImportRun) -> ImportRun:
    """The claimed import run and its outcome recorded on its row: a problem, or a bug, fails
    it (a bug must not leave it running forever)."""
    try:
        files = {name: _file_read(path) for name, path in run.file_paths.items()}
        return _imported(importer_get(run.kind), run, files, run.options)
    except ImportProblem as problem:
        return _failed(run, problem)
    except Superseded:
        raise
    except Exception:  # noqa: BLE001 - whatever broke, the import ends failed
        logger.exception("import %s failed", run.public_id)
        problem = ImportProblem("import", "it failed unexpectedly (the worker's log has why)")
        return _failed(run, problem)


def imports_stalled() -> list[int]:
    """Queued imports no worker took (a lost message), and running ones whose worker died
    (the import is one transaction: it starts over)."""
    now = timezone.now()
    lost = Q(status=ImportStatus.QUEUED, created_at__lt=now - timedelta(minutes=2))
    limit = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    dead = Q(status=ImportStatus.RUNNING, started_at__lt=now - limit)
    return list(ImportRun.objects.filter(lost | dead).values_list("pk", flat=True))


def _file_read(path: str) -> bytes:
    with default_storage.open(path, "rb") as stored:
        return stored.read()


def _files_drop(paths: dict[str, str]) -> None:
    for path in paths.values():
        default_storage.delete(path)


OPTION_CHARS = 500


def _check_options(options: dict) -> None:
    """Every importer's options are short texts (a name, a format, an id, a model): anything
    else is the options' problem, not an error deep in an importer."""
    for key, value in options.items():
        if not isinstance(value, str) or len(value) > OPTION_CHARS:
            raise ImportProblem(
                "options", f"{str(key)[:100]!r} is not a text of at most {OPTION_CHARS} characters"
            )


def _check_files(importer, files: dict[str, bytes]) -> None:
    for spec in importer.files:
        data = files.get(spec.name)
        if spec.required and not data:
            raise ImportProblem(spec.name, "this file is required")
        if data and len(data) > spec.max_bytes:
            raise ImportProblem(spec.name, f"larger than {spec.max_bytes:,} bytes")
    unknown = set(files) - {spec.name for spec in importer.files}
    if unknown:
        raise ImportProblem(", ".join(sorted(unknown)), "not a file this importer takes")


def _imported(importer, run: ImportRun, files: dict[str, bytes], options: dict) -> ImportRun:
    """Run the importer in one transaction that records `run` completed (inserted when it is
    a request's, updated when it is a worker's)."""
    report = Report()
    try:
        with transaction.atomic():
            importer.run(
                workspace=run.workspace,
                user=run.created_by,
                files=files,
                options=options,
                report=report,
            )
            _finished(run, ImportStatus.COMPLETED, report=report.as_json())
    except IntegrityError:
        if run.pk is not None:  # a worker's row is its files' one import: nothing else clashes
            raise
        # a request's, while another import of the same files got under way: theirs stands
        return _same_files(run.workspace_id, run.kind, run.content_hash)
    return run


def _same_files(workspace_id: int, kind: str, content_hash: str) -> ImportRun:
    """The import of these files that is under way or done (one at a time: a constraint)."""
    return ImportRun.objects.get(
        workspace_id=workspace_id, kind=kind, content_hash=content_hash, status__in=UNFAILED
    )


def _failed(run: ImportRun, problem: ImportProblem) -> ImportRun:
    _finished(run, ImportStatus.FAILED, report={}, error=cap_text(str(problem), ERROR_BYTES))
    return run


def _finished(run: ImportRun, status: str, **fields) -> None:
    """Record the outcome: a request's import is inserted now; a worker's row is updated only
    while its claim holds (still running since the moment it claimed it), else Superseded."""
    run.status, run.finished_at = status, timezone.now()
    for name, value in fields.items():
        setattr(run, name, value)
    if run.pk is None:
        run.save(force_insert=True)
        return
    held = ImportRun.objects.filter(
        pk=run.pk, status=ImportStatus.RUNNING, started_at=run.started_at
    )
    if not held.update(status=status, finished_at=run.finished_at, **fields):
        raise Superseded


def _announce(run: ImportRun) -> None:
    """`import.finished` or `import.failed` to the workspace's webhooks."""
    finished = run.status == ImportStatus.COMPLETED
    event_type = EventType.IMPORT_FINISHED if finished else EventType.IMPORT_FAILED
    data = {"import": str(run.public_id), "kind": run.kind, "status": run.status}
    if run.error:
        data["error"] = run.error
    event_emit(workspace=run.workspace, event_type=event_type, data=data)
