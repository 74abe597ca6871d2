"""Celery tasks of evalsets: thin wrappers that claim a job row and call the service."""

from celery import shared_task

from .importing import import_claim, import_run


@shared_task(name="evalsets.tasks.run_import", queue="default")
def run_import(import_id: int) -> str:
    """Run one queued import. Safe to deliver twice: only the claim's winner runs it."""
    job = import_claim(import_id=import_id)
    if job is None:
        return "skipped"
    return import_run(job=job).status
