"""Alerts on online rules: their settings, and the evaluation that decides each closed window.

A beat task (`online.tasks.evaluate_alerts`) calls `rule_alerts_evaluate`; each enabled alert
of an active rule decides every window that closed since its last one, once the rule's late
items are in (`readiness`: the rule's idle time, the sweep's lag and `SCORING_GRACE`). A
window's history is built from the stored outcomes and strata (`online.selectors.rule_hours`)
and handed to `experiments.stats.alerts.decide` with the stored state. A worker claims a window
with a conditional UPDATE on `evaluated_until` in the transaction that saves the state and the
event, so two workers never decide one window, and the webhook event (alert.fired /
alert.resolved) is sent after that transaction commits.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from assay.jobs import each_apart
from assay.safety.caps import cap_text
from assay.vocabulary import EventType
from experiments.stats import alerts as stats
from experiments.stats.alerts import Estimate
from notifications.services import event_emit

from .. import selectors
from ..models import (
    DEFAULT_DIRECTION,
    NEVER_RESOLVED,
    AlertAction,
    AlertDirection,
    AlertEvent,
    AlertMetric,
    AlertMode,
    AlertWindow,
    OnlineRule,
    RuleAlert,
)

WINDOW_SIZE = {AlertWindow.HOUR: timedelta(hours=1), AlertWindow.DAY: timedelta(days=1)}
SCORING_GRACE = timedelta(minutes=5)  # a ready item's judge call, its retries and the write
MAX_CATCH_UP = 168  # windows one evaluation decides; older ones are skipped, not piled up
TOTALS = (AlertMetric.COST, AlertMetric.VOLUME)  # one value a window, not a mean of items
RATES = (AlertMetric.FAIL_RATE, AlertMetric.UNKNOWN_RATE)
LIMITS = {"min_n": (1, 100_000), "cooldown": (0, 1_000), "baseline_windows": (6, 168)}
MESSAGE_CHARS = 1_000


# ----------------------------------------------------------------------------- settings


def rule_alert_create(*, rule: OnlineRule, user, fields: dict) -> RuleAlert:
    """A new alert on the rule; every problem named by its field, nothing saved when there
    is one. `fields` may name `rule_evaluator` (one of the rule's; its first by default)."""
    alert = RuleAlert(rule=rule, created_by=user)
    return _alert_save(alert, {"rule_evaluator": None, **fields})


def rule_alert_update(*, alert: RuleAlert, fields: dict) -> RuleAlert:
    """Change an alert's settings (the state stays: an open alert stays open)."""
    return _alert_save(alert, fields)


def rule_alert_delete(*, alert: RuleAlert) -> None:
    """Delete an alert with its history."""
    alert.delete()


def _alert_save(alert: RuleAlert, fields: dict) -> RuleAlert:
    if fields.get("enabled") and alert.pk and not alert.enabled:
        alert.evaluated_until = None  # enabled again: from the last closed window, no backlog
    for name in (*RuleAlert.SETTINGS, "rule_evaluator"):
        if name in fields:
            setattr(alert, name, fields[name])
    errors = _alert_problems(alert)
    if errors:
        raise ValidationError(errors)
    alert.save()
    return alert


def _alert_problems(alert: RuleAlert) -> dict[str, list[str]]:
    errors: dict[str, list[str]] = {}
    if alert.metric not in AlertMetric.values:
        return {"metric": [_("Choose a metric: %(m)s.") % {"m": ", ".join(AlertMetric.values)}]}
    alert.direction = alert.direction or DEFAULT_DIRECTION[alert.metric]
    if alert.direction not in AlertDirection.values:
        errors["direction"] = [_("The direction is rise, drop or either.")]
    _evaluator_check(alert, errors)
    _mode_check(alert, errors)
    _numbers_check(alert, errors)
    return errors


def _evaluator_check(alert: RuleAlert, errors: dict) -> None:
    """Volume is the rule's; every other metric is one evaluator's (the rule's first when
    none is named)."""
    if alert.metric == AlertMetric.VOLUME:
        alert.rule_evaluator = None
    elif alert.rule_evaluator is None:
        alert.rule_evaluator = alert.rule.evaluators.order_by("position", "pk").first()
    elif alert.rule_evaluator.rule_id != alert.rule_id:
        errors["evaluator_version"] = [_("Not an evaluator version of this rule.")]


def _mode_check(alert: RuleAlert, errors: dict) -> None:
    if alert.mode not in AlertMode.values:
        errors["mode"] = [_("The mode is statistical or threshold.")]
    elif alert.mode == AlertMode.THRESHOLD and alert.threshold is None:
        errors["threshold"] = [_("A threshold alert needs a threshold value.")]
    elif alert.mode == AlertMode.STATISTICAL and alert.threshold is not None:
        errors["threshold"] = [_("A threshold is used only in threshold mode.")]
    elif alert.threshold is not None and not math.isfinite(alert.threshold):
        errors["threshold"] = [_("The threshold is a number.")]
    elif alert.metric in RATES and alert.threshold is not None and not 0 <= alert.threshold <= 1:
        errors["threshold"] = [_("A rate's threshold is between 0 and 1.")]


def _numbers_check(alert: RuleAlert, errors: dict) -> None:
    if alert.window not in AlertWindow.values:
        errors["window"] = [_("The window is hour or day.")]
    for name, (low, high) in LIMITS.items():
        value = getattr(alert, name)
        if not isinstance(value, int) or not low <= value <= high:
            errors[name] = [_("Between %(low)s and %(high)s.") % {"low": low, "high": high}]
    rate = alert.false_alarms_per_week
    if not isinstance(rate, int | float) or not 0 < rate <= 0.5:
        errors["false_alarms_per_week"] = [
            _("A share above 0 and at most 0.5 (0.05: one quiet week in twenty).")
        ]


def alert_settings(*, alert: RuleAlert) -> stats.Settings:
    """The decision's settings from the alert's."""
    return stats.Settings(
        direction=alert.direction,
        false_alarms_per_week=alert.false_alarms_per_week,
        windows_per_week=stats.WINDOWS_PER_WEEK[alert.window],
        baseline=alert.baseline_windows,
        min_n=alert.min_n,
        min_baseline_windows=min(6, alert.baseline_windows),
        cooldown=alert.cooldown,
        threshold=alert.threshold if alert.mode == AlertMode.THRESHOLD else None,
    )


# ----------------------------------------------------------------------------- evaluation


def rule_alerts_evaluate(*, now: datetime) -> int:
    """Evaluate every enabled alert of the active rules (each window in its own transaction);
    the number of events recorded. An alert that fails is logged and the others go on."""
    alerts = RuleAlert.objects.filter(enabled=True, rule__active=True)
    decided = each_apart(
        alerts.values_list("pk", flat=True),
        lambda pk: rule_alert_evaluate(alert_id=pk, now=now),
        what="online alert",
    )
    return sum(len(events) for events in decided)


def rule_alert_evaluate(*, alert_id: int, now: datetime) -> list[AlertEvent]:
    """Decide each window of the alert that closed (and whose late items are in) since its
    last decided window; a new alert starts from the last closed one. The events recorded
    (none for an alert deleted meanwhile)."""
    alert = RuleAlert.objects.select_related("rule").filter(pk=alert_id).first()
    events = []
    for start in _due_windows(alert, now) if alert else []:
        outcome = _window_decide(alert_id=alert_id, start=start)
        if outcome is False:  # another worker holds the alert's windows, or it is gone
            break
        events += [outcome] if outcome else []
    return events


def readiness(rule: OnlineRule) -> timedelta:
    """How long after a window closes its items are all scored: a trace or session waits for
    its idle time, every item for the sweep's lag and period, then the judge."""
    wait = rule.idle_seconds + settings.ASSAY_ONLINE_SWEEP_LAG_S + settings.ASSAY_ONLINE_SWEEP_S
    return timedelta(seconds=wait) + SCORING_GRACE


def _due_windows(alert: RuleAlert, now: datetime) -> list[datetime]:
    size = WINDOW_SIZE[alert.window]
    closed = window_floor(now - readiness(alert.rule), alert.window)
    first = alert.evaluated_until or closed - size
    first = max(first, closed - size * MAX_CATCH_UP)
    return [first + size * i for i in range(int((closed - first) / size))]


def window_floor(at: datetime, window: str) -> datetime:
    """The start of the window (UTC hour or day) holding `at`."""
    hour = at.replace(minute=0, second=0, microsecond=0)
    return hour if window == AlertWindow.HOUR else hour.replace(hour=0)


def _window_decide(*, alert_id: int, start: datetime) -> AlertEvent | None | bool:
    """One window decided in one transaction: the claim, the state and the event. False when
    another worker moved the alert on first, or the alert was deleted."""
    with transaction.atomic():
        alert = RuleAlert.objects.select_related("rule__workspace").filter(pk=alert_id).first()
        if alert is None:
            return False
        end = start + WINDOW_SIZE[alert.window]
        if not _claimed(alert, start, end):
            return False
        history = alert_history(alert=alert, end=end)
        decision = stats.decide(
            history,
            alert_settings(alert=alert),
            was_open=alert.is_open,
            quiet_for=alert.quiet_for,
            per_window=alert.metric in TOTALS,
        )
        _state_save(alert, decision)
        if decision.action == "quiet":
            return None
        return _event_record(alert, decision, history, start, end)


def _claimed(alert: RuleAlert, start: datetime, end: datetime) -> bool:
    """Move `evaluated_until` from what this worker read to the window's end; a worker that
    read the same value and comes second updates nothing."""
    read = alert.evaluated_until
    if read is not None and read > start:  # decided already
        return False
    before = Q(evaluated_until__isnull=True) if read is None else Q(evaluated_until=read)
    return bool(RuleAlert.objects.filter(before, pk=alert.pk).update(evaluated_until=end))


def _state_save(alert: RuleAlert, decision: stats.Decision) -> None:
    resolved = decision.action == "resolved"
    alert.quiet_for = 0 if resolved else min(alert.quiet_for + 1, NEVER_RESOLVED)
    alert.is_open = decision.open
    alert.save(update_fields=["is_open", "quiet_for"])


def _event_record(alert, decision, history, start, end) -> AlertEvent | None:
    last, baseline = history[-1], _baseline_value(alert, history)
    event = AlertEvent(
        alert=alert,
        action=decision.action,
        window_start=start,
        window_end=end,
        value=last.value if last.n else None,
        baseline=baseline,
        z=None if decision.z is None else round(decision.z, 3),
        test=decision.test,
        n=last.n,
    )
    event.message = cap_text(alert_message(alert=alert, event=event), MESSAGE_CHARS)
    try:
        with transaction.atomic():
            event.save()
    except IntegrityError:  # recorded already: a window is announced once
        return None
    _event_announce(alert, event)
    return event


def _baseline_value(alert: RuleAlert, history: list[Estimate]) -> float | None:
    base = [e for e in history[:-1][-alert.baseline_windows :] if e.n > 0]
    if not base:
        return None
    if alert.metric in TOTALS:
        return sum(e.value for e in base) / len(base)
    return stats.pooled(base).value


def _event_announce(alert: RuleAlert, event: AlertEvent) -> None:
    """alert.fired / alert.resolved to the workspace's webhooks (sent after the commit)."""
    kind = EventType.ALERT_FIRED if event.action == AlertAction.FIRED else EventType.ALERT_RESOLVED
    rule = alert.rule
    event_emit(
        workspace=rule.workspace,
        event_type=kind,
        data={
            "alert": str(alert.public_id),
            "rule": str(rule.public_id),
            "rule_name": rule.name,
            "metric": alert.metric,
            "direction": alert.direction,
            "message": event.message,
            "window_start": event.window_start.isoformat(),
            "window_end": event.window_end.isoformat(),
            "value": event.value,
            "baseline": event.baseline,
            "z": event.z,
            "test": event.test,
            "path": f"/w/{rule.workspace.slug}/online/{rule.public_id}/alerts/{alert.public_id}/",
        },
    )


def alert_message(*, alert: RuleAlert, event: AlertEvent) -> str:
    """One line in English (a worker writes it; webhooks carry it): what moved, where to."""
    what = AlertMetric(alert.metric).name.replace("_", " ").lower()
    shown = [_shown(alert.metric, v) for v in (event.value, event.baseline)]
    verb = "fired" if event.action == AlertAction.FIRED else "resolved"
    text = f"{alert.rule.name}: {what} {verb} for {event.window_start:%Y-%m-%d %H:%M} UTC"
    text += f" ({alert.window}): {shown[0]}"
    if alert.mode == AlertMode.THRESHOLD:
        return text + f", threshold {_shown(alert.metric, alert.threshold)}"
    text += f" against {shown[1]} over the windows before"
    return text + (f" (z = {event.z:.2f}, {event.test})" if event.test else "")


def _shown(metric: str, value: float | None) -> str:
    if value is None:
        return "no data"
    if metric in RATES:
        return f"{value:.1%}"
    return f"${value:.4f}" if metric == AlertMetric.COST else f"{value:g}"


# ----------------------------------------------------------------------------- history


def alert_history(*, alert: RuleAlert, end: datetime) -> list[Estimate]:
    """The estimates of the windows up to `end` (oldest first), as far back as the baseline
    and the two-window test need."""
    size = WINDOW_SIZE[alert.window]
    count = alert.baseline_windows + 2
    start = end - size * count
    rows = selectors.rule_hours(
        rule=alert.rule, rule_evaluator=alert.rule_evaluator, start=start, end=end
    )
    windows: list[list[tuple]] = [[] for _ in range(count)]
    for (hour, rate), row in rows.items():
        windows[int((hour - start) / size)].append((rate, row))
    covered = _coverage_start(alert.rule)
    return [
        _estimate(alert.metric, strata, covered=start + size * i >= covered)
        for i, strata in enumerate(windows)
    ]


def _coverage_start(rule: OnlineRule) -> datetime:
    """From when the rule's windows hold its traffic (a total before it is no data, not 0)."""
    began = rule.created_at.replace(minute=0, second=0, microsecond=0)
    return min(began, rule.backfilled_from or began)


def _estimate(metric: str, strata: list[tuple], *, covered: bool) -> Estimate:
    """One window's estimate from its strata (sampling rate → that stratum's counts)."""
    if metric == AlertMetric.FAIL_RATE:
        return _fail_rate(strata)
    rows = [row for _rate, row in strata]
    if metric == AlertMetric.UNKNOWN_RATE:
        return stats.proportion(sum(r["unknown"] for r in rows), sum(r["scored"] for r in rows))
    if metric == AlertMetric.MEAN_SCORE:
        return stats.mean(*(sum(r[k] for r in rows) for k in ("scores", "total", "squares")))
    if not covered:
        return Estimate(0.0, 0.0, 0)
    key = "cost" if metric == AlertMetric.COST else "eligible"
    return stats.totals([sum(r[key] for r in rows)])[0]


def _fail_rate(strata: list[tuple]) -> Estimate:
    """The traffic-weighted fail rate, as the monitor's (`window_fail_rate`'s point): each
    stratum's decided rate weighed by its eligible items, so a lowered sampling rate does not
    tilt the window; it stands on the decided count."""
    kept = [row for _rate, row in strata if row["fails"] + row["passes"]]
    decided = sum(r["fails"] + r["passes"] for r in kept)
    if not decided:
        return stats.proportion(0, 0)
    weights = [max(r["eligible"], r["fails"] + r["passes"]) for r in kept]
    rate = sum(
        w * r["fails"] / (r["fails"] + r["passes"]) for w, r in zip(weights, kept, strict=True)
    )
    return stats.proportion(round(rate / sum(weights) * decided), decided)
