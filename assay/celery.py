"""The Celery application: queues `code` (CPU-bound sandbox work) and `llm` (IO-bound calls)."""

import os

from celery import Celery
from celery.signals import celeryd_after_setup
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
# `filesystem://` (no REDIS_URL) is kombu's transport with unreadable messages skipped
TRANSPORT_ALIASES["filesystem"] = "assay.broker:Transport"

app = Celery("assay")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# The queues this process's worker consumes (None: not a worker), noted before its pool forks.
_QUEUES: frozenset[str] | None = None


@celeryd_after_setup.connect
def _queues_noted(sender=None, instance=None, **_kwargs) -> None:
    global _QUEUES
    _QUEUES = frozenset(instance.app.amqp.queues.consume_from)


def worker_queues() -> frozenset[str] | None:
    """The queues this worker consumes (its pool processes inherit them), or None outside a
    worker: work that may belong to another queue can be done here only if this worker
    serves that queue too."""
    return _QUEUES
