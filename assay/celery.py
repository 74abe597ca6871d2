"""The Celery application: queues `code` (CPU-bound sandbox work) and `llm` (IO-bound calls)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")

app = Celery("assay")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
