"""Celery tasks of imports: thin wrappers that take an import's id and call the services."""

from celery import shared_task

from .services import import_execute, imports_stalled


@shared_task(name="imports.tasks.run_import", queue="default")
def run_import(run_id: int) -> str:
    """Run one queued import. Safe to deliver twice: only the claim's winner runs it."""
    run = import_execute(run_id=run_id)
    return "skipped" if run is None else run.status


@shared_task(name="imports.tasks.resume_imports", queue="default")
def resume_imports() -> int:
    """Send again the imports no worker took or whose worker died (beat)."""
    stalled = imports_stalled()
    for run_id in stalled:
        run_import.apply_async(args=[run_id], queue="default")
    return len(stalled)
