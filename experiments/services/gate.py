"""The CI gate's decision recorded (`POST /api/v1/experiments/gate/`; the GET only reads).

A check is a candidate, a baseline and the gate's options; it has one `GateDecision`, updated
each time it is posted (a correction may change the answer). `gate.failed` goes to the
workspace's webhooks the first time a check fails, claimed by one conditional UPDATE, so the
same check posted twice, or by two CI jobs at once, is announced once.
"""

from __future__ import annotations

from dataclasses import asdict

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from assay.safety.caps import cap_text
from assay.vocabulary import EventType
from notifications.services import event_emit

from ..models import Experiment, GateDecision
from ..results.gate import GateResult, gate_check

MAX_REASONS = 20  # a gate fails on a few tests per evaluator; a receiver needs no more
MAX_REASON_CHARS = 500


def gate_decision_record(
    *, baseline: Experiment, candidate: Experiment, options: dict, user: AbstractBaseUser
) -> tuple[GateResult, GateDecision]:
    """Decide the gate (`gate_check` with `options`) and record the decision; announce
    `gate.failed` (sent once the transaction commits) when this check fails for the first
    time. ValidationError, as `gate_check`, for runs or options it cannot decide on."""
    result = gate_check(baseline=baseline, candidate=candidate, **options)
    now = timezone.now()
    with transaction.atomic():
        decision, _created = GateDecision.objects.update_or_create(
            candidate=candidate,
            baseline=baseline,
            alpha=result.alpha,
            max_drop=result.max_drop,
            max_unknown_rate=result.max_unknown_rate,
            min_decided=result.min_decided,
            defaults={
                "workspace": candidate.workspace,
                "passed": result.passed,
                "reasons": gate_reasons(result),
                "failing": [asdict(r) for r in result.evaluators if r.failed][:MAX_REASONS],
                "decided_at": now,
                "decided_by": user,
            },
        )
        if not result.passed and _failure_claim(decision, now):
            _failed_emit(decision)
    return result, decision


def gate_reasons(result: GateResult) -> list[str]:
    """The gate's own reasons, then "<evaluator>: <why>" per failing evaluator (as the CLI
    prints them), capped."""
    lines = list(result.reasons) + [
        f"{row.evaluator}: {'; '.join(row.reasons)}" for row in result.evaluators if row.failed
    ]
    return [cap_text(line, MAX_REASON_CHARS) for line in lines[:MAX_REASONS]]


def _failure_claim(decision: GateDecision, now) -> bool:
    """True for the one caller that marks the check's failure announced."""
    unannounced = GateDecision.objects.filter(pk=decision.pk, failure_announced_at__isnull=True)
    if not unannounced.update(failure_announced_at=now):
        return False
    decision.failure_announced_at = now
    return True


def _failed_emit(decision: GateDecision) -> None:
    candidate, baseline = decision.candidate, decision.baseline
    compare = reverse("compare:page", kwargs={"ws": decision.workspace.slug})
    event_emit(
        workspace=decision.workspace,
        event_type=EventType.GATE_FAILED,
        data={
            "candidate": {"id": str(candidate.public_id), "name": candidate.name},
            "baseline": {"id": str(baseline.public_id), "name": baseline.name},
            "options": {
                "alpha": decision.alpha,
                "max_drop": decision.max_drop,
                "max_unknown_rate": decision.max_unknown_rate,
                "min_decided": decision.min_decided,
            },
            "reasons": decision.reasons,
            "path": f"{compare}?baseline={baseline.public_id}&candidates={candidate.public_id}",
        },
    )
