"""Alerts on the pages: added from the rule's page with the default explained, problems shown
by field and nothing saved, the history page, changed and deleted there; the monitor marks a
window an alert fired on; a viewer reads, outsiders get 404."""

from datetime import timedelta

import pytest
from django.utils import timezone

from online.models import AlertEvent, RuleAlert
from online.services import rule_alert_create

from .support import code_rule

pytestmark = pytest.mark.django_db


@pytest.fixture
def rule(workspace, user):
    return code_rule(workspace, user)


def _page(rule, alert=None, tail=""):
    base = f"/w/acme/online/{rule.public_id}/"
    return base + (f"alerts/{alert.public_id}/" if alert else "") + tail


FORM = {
    "metric": "fail_rate",
    "mode": "statistical",
    "window": "hour",
    "min_n": "30",
    "baseline_windows": "24",
    "cooldown": "3",
    "false_alarms_percent": "5",
    "enabled": "on",
}


def test_an_alert_is_added_from_the_rules_page(web, rule):
    page = web.get(_page(rule)).content.decode()
    assert 'id="alerts"' in page and "significantly worse than the last 24" in page
    answer = web.post(_page(rule, tail="alerts/new/"), FORM)
    assert answer.status_code == 302
    alert = RuleAlert.objects.get()
    assert (alert.metric, alert.direction, alert.false_alarms_per_week) == (
        "fail_rate",
        "rise",
        0.05,
    )
    assert alert.rule_evaluator == rule.evaluators.get()
    page = web.get(_page(rule)).content.decode()
    assert f"alerts/{alert.public_id}/" in page and "quiet" in page


def test_problems_are_shown_by_field_and_nothing_is_saved(web, rule):
    answer = web.post(
        _page(rule, tail="alerts/new/"),
        {**FORM, "mode": "threshold", "false_alarms_percent": "80", "baseline_windows": "2"},
    )
    assert answer.status_code == 400
    form = answer.context["alert_form"]
    assert form.errors["threshold"] == ["A threshold alert needs a threshold value."]
    assert set(form.errors) == {"threshold", "false_alarms_percent", "baseline_windows"}
    assert not RuleAlert.objects.exists()


def test_the_history_page_changes_and_deletes(web, rule, user):
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    at = timezone.now().replace(minute=0, second=0, microsecond=0) - timedelta(hours=3)
    AlertEvent.objects.create(
        alert=alert,
        action="fired",
        window_start=at,
        window_end=at + timedelta(hours=1),
        value=0.4,
        baseline=0.05,
        z=6.2,
        test="window",
        n=100,
        message="<script>x</script>",
    )
    page = web.get(_page(rule, alert)).content.decode()
    assert "40.0" in page and "6.20" in page and "the window alone" in page
    assert "<script>x" not in page
    changed = web.post(_page(rule, alert), {**FORM, "mode": "threshold", "threshold": "0.25"})
    assert changed.status_code == 302
    alert.refresh_from_db()
    assert (alert.mode, alert.threshold) == ("threshold", 0.25)
    # the monitor marks the hour the alert fired on
    monitor = web.get(_page(rule), {"window": "hour"}).content.decode()
    assert monitor.count('class="badge fail alert-fired"') == 1
    assert web.post(_page(rule, alert, "delete/")).status_code == 302
    assert not RuleAlert.objects.exists()


def test_a_viewer_reads_the_history_but_cannot_change_it(client, member, rule, user):
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    client.force_login(member("vera", role="viewer"))
    page = client.get(_page(rule, alert))
    assert page.status_code == 200 and 'id="alert-edit"' not in page.content.decode()
    assert client.post(_page(rule, alert), FORM).status_code == 403
    assert client.post(_page(rule, tail="alerts/new/"), FORM).status_code == 403
    assert client.post(_page(rule, alert, "delete/")).status_code == 403
    assert RuleAlert.objects.get().mode == "statistical"


def test_outsiders_get_404(client, outsider, rule, user):
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    client.force_login(outsider)
    assert client.get(_page(rule, alert)).status_code == 404
    assert client.post(_page(rule, tail="alerts/new/"), FORM).status_code == 404
    assert client.post(_page(rule, alert, "delete/")).status_code == 404
    # their own rule's page with Acme's alert id
    theirs = code_rule(outsider.memberships.get().workspace, outsider, name="theirs")
    assert (
        client.get(f"/w/other/online/{theirs.public_id}/alerts/{alert.public_id}/").status_code
        == 404
    )
    assert RuleAlert.objects.count() == 1
