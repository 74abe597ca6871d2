"""Assay: the platform package (settings, urls, Celery app, workspace-wide models)."""

from .celery import app as celery_app

__all__ = ["celery_app"]
