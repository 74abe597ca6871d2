"""Tasks of online evaluation: thin wrappers that take ids and call the services."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from .services import rules_sweep


@shared_task(ignore_result=True)
def sweep_rules() -> int:
    """Sweep every active rule (`online.services.rules_sweep`); the online runs launched."""
    return rules_sweep(now=timezone.now())


@shared_task(ignore_result=True)
def evaluate_alerts() -> int:
    """Decide every enabled alert's windows that closed since its last (a window another
    worker is deciding is left to it); the number of events recorded."""
    from .services import rule_alerts_evaluate

    return rule_alerts_evaluate(now=timezone.now())
