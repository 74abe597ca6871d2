"""A garak import in the background, as evalset imports are: the request reads and checks the
report (every refusal is its 400: a bad line, a cap, counts no threshold gives, a cut report),
stores the file and a queued `GarakImport` row, and queues the task once that row is
committed; the task claims the row (one conditional UPDATE, so a message delivered twice runs
once) and imports probe by probe, each probe and the job's count in one transaction, so the
page and the API show probes done of N, and a second run goes on from the first probe not
done. The same run uploaded again is answered with the import that has it."""

from __future__ import annotations

import logging

from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone

from assay.jobs import job_claim
from evalsets.items.cells import N_, Problem
from evalsets.items.media import upload_store
from evalsets.items.problems import stored_message

from ..models import ACTIVE_GARAK_IMPORTS, GarakImport, GarakImportStatus
from .garak import GarakPlan, garak_import_plan, garak_probe_import, garak_upload_bytes

logger = logging.getLogger(__name__)


def garak_import_create(
    *, workspace, user, upload, threshold: float | None = None, partial: bool = False
) -> tuple[GarakImport, bool]:
    """Check an uploaded garak report and queue its import: (the job, True). Nothing is
    stored when the report is refused (ValidationError). A run imported before gets a finished
    job naming the earlier experiments (`already`), and a run being imported its active job:
    (that job, False), nothing made."""
    data = garak_upload_bytes(upload=upload)
    plan = garak_import_plan(workspace=workspace, data=data, threshold=threshold, partial=partial)
    fields = _job_fields(workspace, user, upload, plan, threshold, partial)
    active = _active(workspace, fields["run_key"])
    if active is not None:
        return active, False
    if plan.earlier:
        return _already(fields, plan), False
    path = upload_store(workspace=workspace, upload=upload, folder="garak")
    try:
        with transaction.atomic():
            job = GarakImport.objects.create(**fields, file_path=path)
            transaction.on_commit(lambda: _enqueue(job.pk))
    except IntegrityError:  # the same run was queued by another request meanwhile
        default_storage.delete(path)
        return _active(workspace, fields["run_key"]), False
    except BaseException:
        default_storage.delete(path)  # nothing may outlive a request that failed
        raise
    return job, True


def _job_fields(workspace, user, upload, plan: GarakPlan, threshold, partial) -> dict:
    report = plan.report
    run_key = f"{report.run_id}|{report.attempts}|{'partial' if partial else 'whole'}"
    return {
        "workspace": workspace,
        "created_by": user,
        "file_name": (getattr(upload, "name", "") or "report.jsonl")[:255],
        "file_size": upload.size,
        "threshold": threshold,
        "partial": partial,
        "run_id": report.run_id[:200],
        "run_key": run_key[:300] if report.run_id else "",
        "probes_total": len(report.scans),
        "notes": [{"text": str(n), **stored_message(n)} for n in plan.notes],
    }


def _active(workspace, run_key: str) -> GarakImport | None:
    if not run_key:
        return None
    found = GarakImport.objects.filter(
        workspace=workspace, run_key=run_key, status__in=ACTIVE_GARAK_IMPORTS
    )
    return found.first()


def _already(fields: dict, plan: GarakPlan) -> GarakImport:
    """A finished job that answers with the earlier import's experiments; nothing else made."""
    job = GarakImport.objects.create(
        **fields,
        status=GarakImportStatus.COMPLETED,
        already=True,
        probes_done=len(plan.earlier),
        finished_at=timezone.now(),
    )
    job.experiments.set(plan.earlier)
    return job


def _enqueue(job_id: int) -> None:
    from ..tasks import garak_import_run as task

    task.apply_async(args=[job_id], queue="default")


def garak_import_claim(*, job_id: int) -> GarakImport | None:
    """queued → running; None when another delivery of the task has it, or it finished."""
    return job_claim(
        model=GarakImport,
        pk=job_id,
        queued=GarakImportStatus.QUEUED,
        running=GarakImportStatus.RUNNING,
    )


def garak_import_run(*, job: GarakImport) -> GarakImport:
    """Import a claimed job's probes to `completed`, or end it `failed` with the reason; the
    stored report is deleted either way."""
    try:
        _import_probes(job)
    except ValidationError as exc:  # the stored report no longer reads as it did
        _finish(job, GarakImportStatus.FAILED, _refused(exc))
    except FileNotFoundError:  # the storage lost it (its path is not the member's business)
        lost = Problem(N_("The stored report is gone; upload it again."))
        _finish(job, GarakImportStatus.FAILED, lost)
    except Exception as exc:  # the job must end failed, whatever broke
        logger.exception("garak import %s failed", job.pk)
        stopped = N_("The import stopped after %(done)s of %(total)s probes: %(error)s")
        done = job.experiments.count()
        error = f"{type(exc).__name__}: {exc}"[:1000]
        params = {"done": done, "total": job.probes_total, "error": error}
        _finish(job, GarakImportStatus.FAILED, Problem(stopped, params))
    else:
        _finish(job, GarakImportStatus.COMPLETED, "")
    job.refresh_from_db()
    return job


def _import_probes(job: GarakImport) -> None:
    with default_storage.open(job.file_path, "rb") as stored:
        data = stored.read()
    plan = garak_import_plan(
        workspace=job.workspace,
        data=data,
        threshold=job.threshold,
        partial=job.partial,
        earlier=False,
    )
    done = set(job.experiments.values_list("probe_name", flat=True))  # a resumed job's
    for scan in plan.report.scans.values():
        if scan.probe in done:
            continue
        with transaction.atomic():
            experiment = garak_probe_import(
                workspace=job.workspace, user=job.created_by, plan=plan, scan=scan
            )
            job.experiments.add(experiment)
            done.add(scan.probe)
            GarakImport.objects.filter(pk=job.pk).update(probes_done=len(done))


def _refused(exc: ValidationError) -> Problem:
    text = "; ".join(exc.messages)[:1000]
    return Problem(N_("The stored report was refused: %(error)s"), {"error": text})


def _finish(job: GarakImport, status: str, message: Problem | str) -> None:
    GarakImport.objects.filter(pk=job.pk).update(
        status=status,
        message=str(message),
        message_params=stored_message(message),
        file_path="",
        finished_at=timezone.now(),
    )
    if job.file_path:
        default_storage.delete(job.file_path)
