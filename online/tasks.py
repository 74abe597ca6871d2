"""Tasks of online evaluation: thin wrappers that take ids and call the services."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from .models import OnlineRule
from .services import online_sweep


@shared_task(ignore_result=True)
def sweep_rules() -> int:
    """Sweep every active rule (each in its own transaction, a rule another worker is sweeping
    is skipped); the number of online runs launched."""
    now = timezone.now()
    rules = OnlineRule.objects.filter(active=True)
    launched = [online_sweep(rule_id=pk, now=now) for pk in rules.values_list("pk", flat=True)]
    return sum(run is not None for run in launched)


@shared_task(ignore_result=True)
def evaluate_alerts() -> int:
    """Decide every enabled alert's windows that closed since its last (a window another
    worker is deciding is left to it); the number of events recorded."""
    from .services import rule_alerts_evaluate

    return rule_alerts_evaluate(now=timezone.now())
