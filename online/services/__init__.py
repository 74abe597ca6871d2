"""Writes of online evaluation: rules (`rules`) and the sweep that samples live spans into
online runs (`sweep`), alerts on
rules (`alerts`)."""

from .alerts import (
    rule_alert_create,
    rule_alert_delete,
    rule_alert_evaluate,
    rule_alert_update,
    rule_alerts_evaluate,
)
from .backfill import BackfillEstimate, online_backfill
from .rules import online_rule_create, online_rule_delete, online_rule_update
from .sweep import online_sweep, rate_in_force, rules_sweep

__all__ = [
    "rule_alert_create",
    "rule_alert_delete",
    "rule_alert_evaluate",
    "rule_alert_update",
    "rule_alerts_evaluate",
    "BackfillEstimate",
    "online_backfill",
    "online_rule_create",
    "online_rule_delete",
    "online_rule_update",
    "online_sweep",
    "rate_in_force",
    "rules_sweep",
]
