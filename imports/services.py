"""Running an import: all or nothing, once per content."""

from __future__ import annotations

import hashlib
import json

from django.db import IntegrityError, transaction

from assay.safety.caps import ERROR_BYTES, cap_text
from assay.vocabulary import EventType
from notifications.services import event_emit

from .kinds import ImportProblem, Report, importer_get
from .models import ImportRun, ImportStatus


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
) -> tuple[ImportRun, bool]:
    """Import `files` with the importer `kind`: (the import, whether it is new). Importing
    the same files again returns the first completed import. A problem raises ImportProblem
    after recording a failed import (with its message) and keeping nothing else."""
    importer = importer_get(kind)
    options = options or {}
    _check_options(options)
    _check_files(importer, files)
    identity = content_hash(kind=kind, files=files, options=options)
    done = ImportRun.objects.filter(
        workspace=workspace, kind=kind, content_hash=identity, status=ImportStatus.COMPLETED
    ).first()
    if done is not None:
        return done, False
    record = {"workspace": workspace, "kind": kind, "content_hash": identity}
    record |= {"file_names": file_names or {}, "created_by": user}
    try:
        return _imported(importer, record, files, options), True
    except ImportProblem as problem:
        _failed(record, problem)
        raise


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


def _imported(importer, record: dict, files: dict[str, bytes], options: dict) -> ImportRun:
    report = Report()
    try:
        with transaction.atomic():
            importer.run(
                workspace=record["workspace"],
                user=record["created_by"],
                files=files,
                options=options,
                report=report,
            )
            run = ImportRun.objects.create(
                **record, status=ImportStatus.COMPLETED, report=report.as_json()
            )
    except IntegrityError:  # the same files imported at the same moment: theirs stands
        return ImportRun.objects.get(
            workspace=record["workspace"],
            kind=record["kind"],
            content_hash=record["content_hash"],
            status=ImportStatus.COMPLETED,
        )
    _announce(run, EventType.IMPORT_FINISHED)
    return run


def _failed(record: dict, problem: ImportProblem) -> None:
    run = ImportRun.objects.create(
        **record, status=ImportStatus.FAILED, error=cap_text(str(problem), ERROR_BYTES)
    )
    _announce(run, EventType.IMPORT_FAILED)


def _announce(run: ImportRun, event_type: str) -> None:
    data = {"import": str(run.public_id), "kind": run.kind, "status": run.status}
    if run.error:
        data["error"] = run.error
    event_emit(workspace=run.workspace, event_type=event_type, data=data)
