"""The Celery application: queues `code` (CPU-bound sandbox work) and `llm` (IO-bound calls)."""

import os

from celery import Celery
from kombu.transport import TRANSPORT_ALIASES

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
# `filesystem://` (no REDIS_URL) is kombu's transport with unreadable messages skipped
TRANSPORT_ALIASES["filesystem"] = "assay.broker:Transport"

app = Celery("assay")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
