"""Platform tasks, and the workers' heartbeat."""

import logging
import time

from celery import shared_task
from celery.signals import task_postrun, worker_ready

# A pool process writes a beat at most this often after the tasks it runs (each beat is a
# database write; chunks finish many times a second under load).
_BEAT_EVERY_S = 5.0
_last_beat = {"at": float("-inf")}
log = logging.getLogger(__name__)


@shared_task(name="assay.tasks.ping")
def ping(value: str) -> str:
    """Round-trip check: the worker echoes what it was sent."""
    return f"pong:{value}"


@shared_task(name="assay.tasks.worker_heartbeat", bind=True, ignore_result=True)
def worker_heartbeat(self) -> None:
    """Beat task (every ASSAY_WORKER_HEARTBEAT_S): this worker's pool runs tasks."""
    _beat(self.request.hostname, force=True)


@task_postrun.connect
def _beat_after_task(sender=None, **_kwargs) -> None:
    """Any task a pool process ran counts as a beat (a worker busy with chunks beats too)."""
    request = getattr(sender, "request", None)
    if request is not None and getattr(request, "hostname", None):
        _beat(request.hostname)


@worker_ready.connect
def _beat_when_ready(sender=None, **_kwargs) -> None:
    """A worker that just started is live before the first beat task comes round."""
    _beat(getattr(sender, "hostname", None) or "worker", force=True)


def _beat(hostname: str, *, force: bool = False) -> None:
    from .services import worker_beat

    now = time.monotonic()
    if not force and now - _last_beat["at"] < _BEAT_EVERY_S:
        return
    _last_beat["at"] = now
    try:
        worker_beat(hostname=hostname)
    except Exception:  # noqa: BLE001 - a missed beat is not the task's failure
        log.warning("could not record the heartbeat of %s", hostname)
