"""Celery tasks of evalsets: thin wrappers that claim a job row and call the service."""

from celery import shared_task

from .committing import commit_claim, commit_run, commits_stalled
from .importing import import_claim, import_run


@shared_task(name="evalsets.tasks.run_import", queue="default")
def run_import(import_id: int) -> str:
    """Run one queued import. Safe to deliver twice: only the claim's winner runs it."""
    job = import_claim(import_id=import_id)
    if job is None:
        return "skipped"
    return import_run(job=job).status


@shared_task(name="evalsets.tasks.run_commit", queue="default")
def run_commit(version_id: int) -> str:
    """Copy a committing version's rows and mark it ready. Safe to deliver twice: only the
    claim's winner copies, from wherever the batches already copied stopped."""
    if not commit_claim(version_id=version_id):
        return "skipped"
    return commit_run(version_id=version_id)


@shared_task(name="evalsets.tasks.resume_commits", queue="default")
def resume_commits() -> int:
    """Requeue commits whose runner died (beat): each goes on from its last copied batch."""
    stalled = commits_stalled()
    for version_id in stalled:
        run_commit.apply_async(args=[version_id], queue="default")
    return len(stalled)
