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
        return _queued(record, files, options), True
    run = ImportRun(**record)
    try:
        return _imported(importer, run, files, options), True
    except ImportProblem as problem:
        _failed(run, problem)
        raise


def _queued(record: dict, files: dict[str, bytes], options: dict) -> ImportRun:
    """The files stored and the import queued; its task is sent once the row is committed."""
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
            transaction.on_commit(lambda: _enqueue(run.pk))
    except BaseException:
        _files_drop(paths)  # nothing may outlive a request that failed
        raise
    return run


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
        files = {name: _file_read(path) for name, path in run.file_paths.items()}
        run = _imported(importer_get(run.kind), run, files, run.options)
    except ImportProblem as problem:
        _failed(run, problem)
    except Exception:  # noqa: BLE001 - a bug must not leave the import running forever
        logger.exception("import %s failed", run.public_id)
        _failed(run, ImportProblem("import", "it failed unexpectedly (the worker's log has why)"))
    _files_drop(run.file_paths)
    return run


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
    except IntegrityError:  # the same files imported at the same moment: theirs stands
        return _imported_meanwhile(run)
    _announce(run, EventType.IMPORT_FINISHED)
    return run


def _imported_meanwhile(run: ImportRun) -> ImportRun:
    """A request gets the import that won; a worker's import fails, naming it."""
    done = ImportRun.objects.get(
        workspace_id=run.workspace_id,
        kind=run.kind,
        content_hash=run.content_hash,
        status=ImportStatus.COMPLETED,
    )
    if run.pk is None:
        return done
    return _failed(run, ImportProblem("files", f"imported meanwhile by import {done.public_id}"))


def _failed(run: ImportRun, problem: ImportProblem) -> ImportRun:
    _finished(run, ImportStatus.FAILED, report={}, error=cap_text(str(problem), ERROR_BYTES))
    _announce(run, EventType.IMPORT_FAILED)
    return run


def _finished(run: ImportRun, status: str, **fields) -> None:
    """Record the outcome: a request's import is inserted now, a worker's row updated."""
    run.status, run.finished_at = status, timezone.now()
    for name, value in fields.items():
        setattr(run, name, value)
    if run.pk is None:
        run.save(force_insert=True)
    else:
        run.save(update_fields=["status", "finished_at", *fields])


def _announce(run: ImportRun, event_type: str) -> None:
    data = {"import": str(run.public_id), "kind": run.kind, "status": run.status}
    if run.error:
        data["error"] = run.error
    event_emit(workspace=run.workspace, event_type=event_type, data=data)
