"""The beat's sweeps over many rows take each row on its own: an alert deleted while a tick
runs is passed over, and one rule or alert that fails is logged with its id while the others
are still swept and decided."""

import logging

import pytest
from django.utils import timezone

from online.models import OnlineRule, RuleAlert
from online.services import rule_alert_create, rule_alert_evaluate, rule_alerts_evaluate
from online.services.sweep import rules_sweep

from .support import code_rule, llm_span, store
from .test_alerts import HOUR, START, closed, rule  # noqa: F401 - the 40 hours of traffic

pytestmark = pytest.mark.django_db


def test_an_alert_deleted_before_its_turn_is_passed_over(rule, user):  # noqa: F811
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    RuleAlert.objects.filter(pk=alert.pk).update(evaluated_until=START + HOUR * 24)
    alert.delete()
    assert rule_alert_evaluate(alert_id=alert.pk, now=closed(rule, 40)) == []


def test_one_broken_alert_does_not_silence_the_others(rule, user, caplog):  # noqa: F811
    broken, sound = (
        rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"}) for _ in range(2)
    )
    RuleAlert.objects.filter(pk__in=[broken.pk, sound.pk]).update(evaluated_until=START + HOUR * 24)
    # a window this version does not know, as a row written by a newer one might hold
    RuleAlert.objects.filter(pk=broken.pk).update(window="minute")
    with caplog.at_level(logging.ERROR, logger="assay.jobs"):
        assert rule_alerts_evaluate(now=closed(rule, 40)) == 2
    assert [e.action for e in sound.events.order_by("window_start")] == ["fired", "resolved"]
    assert not broken.events.exists()
    assert [r.getMessage() for r in caplog.records] == [f"online alert {broken.pk} failed"]


def test_one_broken_rule_does_not_stop_the_sweep_of_the_others(workspace, user, caplog):
    broken = code_rule(workspace, user, name="broken")
    sound = code_rule(workspace, user, name="sound")
    OnlineRule.objects.filter(pk=broken.pk).update(filter={"op": "eq"})  # no field to compare
    store([llm_span(workspace, output="Paris", expected="Paris") for _ in range(3)])
    with caplog.at_level(logging.ERROR, logger="assay.jobs"):
        assert rules_sweep(now=timezone.now() + timezone.timedelta(minutes=1)) == 1
    assert sound.runs.get().items_total == 3
    assert not broken.runs.exists()
    assert [r.getMessage() for r in caplog.records] == [f"online rule {broken.pk} failed"]
