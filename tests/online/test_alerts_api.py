"""Alerts on a rule through the API: created with the defaults (statistical, the metric's bad
direction, the rule's first evaluator), every problem named by its field and nothing saved,
changed, deleted, their history; a viewer reads, outsiders get 404 and cannot use Acme's ids
from their own workspace."""

from datetime import UTC, datetime, timedelta

import pytest

from online.models import AlertEvent, RuleAlert
from tests.support.factories import make_code_version

from .support import code_rule

pytestmark = pytest.mark.django_db


@pytest.fixture
def rule(workspace, user):
    return code_rule(workspace, user)


def _url(rule, alert=None, tail=""):
    base = f"/api/v1/online-rules/{rule.public_id}/alerts/"
    return base + (f"{alert}/" if alert else "") + tail


def _details(answer) -> dict:
    return answer.json()["error"]["details"]


def test_an_alert_with_its_defaults_changed_and_deleted(api, rule):
    answer = api.post(_url(rule), {"metric": "mean_score"}, format="json")
    assert answer.status_code == 201, answer.content
    alert = answer.json()
    version = rule.evaluators.get().evaluator_version
    assert alert["evaluator_version"] == str(version.public_id)
    assert (alert["direction"], alert["mode"], alert["window"]) == ("drop", "statistical", "hour")
    assert (alert["baseline_windows"], alert["false_alarms_per_week"]) == (24, 0.05)
    assert (alert["open"], alert["threshold"], alert["enabled"]) == (False, None, True)
    changed = api.patch(
        _url(rule, alert["id"]), {"mode": "threshold", "threshold": 0.7}, format="json"
    )
    assert changed.status_code == 200, changed.content
    assert (changed.json()["mode"], changed.json()["threshold"]) == ("threshold", 0.7)
    volume = api.post(_url(rule), {"metric": "volume"}, format="json").json()
    assert (volume["direction"], volume["evaluator_version"]) == ("either", None)
    assert [a["metric"] for a in api.get(_url(rule)).json()["results"]] == ["mean_score", "volume"]
    assert api.delete(_url(rule, alert["id"])).status_code == 204
    assert RuleAlert.objects.count() == 1


def test_every_problem_is_named_by_its_field_and_nothing_is_saved(api, rule):
    answer = api.post(
        _url(rule),
        {
            "metric": "fail_rate",
            "direction": "sideways",
            "mode": "threshold",
            "min_n": 0,
            "cooldown": -1,
            "baseline_windows": 2,
            "false_alarms_per_week": 0.9,
        },
        format="json",
    )
    assert answer.status_code == 400
    assert set(_details(answer)) == {
        "direction",
        "threshold",
        "min_n",
        "cooldown",
        "baseline_windows",
        "false_alarms_per_week",
    }
    assert _details(answer)["threshold"] == ["A threshold alert needs a threshold value."]
    for body, field in (
        ({"metric": "latency"}, "metric"),
        ({"metric": "fail_rate", "threshold": 0.2}, "threshold"),  # not in statistical mode
        ({"metric": "fail_rate", "mode": "threshold", "threshold": 3}, "threshold"),
        ({"metric": "cost", "window": "week"}, "window"),
        ({"metric": "cost", "colour": "red"}, "colour"),
    ):
        answer = api.post(_url(rule), body, format="json")
        assert answer.status_code == 400 and field in _details(answer), (body, answer.json())
    assert RuleAlert.objects.count() == 0


def test_the_history_newest_window_first(api, rule, user):
    from online.services import rule_alert_create

    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    start = datetime(2026, 11, 1, 5, tzinfo=UTC)
    for hours, action in ((0, "fired"), (3, "resolved")):
        at = start + timedelta(hours=hours)
        AlertEvent.objects.create(
            alert=alert,
            action=action,
            window_start=at,
            window_end=at + timedelta(hours=1),
            value=0.4,
            baseline=0.05,
            z=6.1,
            test="window",
            message="<b>x</b>",
        )
    answer = api.get(_url(rule, alert.public_id, "events/"))
    assert answer.status_code == 200
    events = answer.json()["results"]
    assert [(e["action"], e["window_start"][:13]) for e in events] == [
        ("resolved", "2026-11-01T08"),
        ("fired", "2026-11-01T05"),
    ]
    assert events[1]["z"] == 6.1 and events[1]["message"] == "<b>x</b>"


def test_a_viewer_reads_but_does_not_write(api, api_client_for, member, workspace, rule):
    alert = api.post(_url(rule), {"metric": "fail_rate"}, format="json").json()
    viewer = api_client_for(workspace, member("vera", role="viewer"))
    assert viewer.get(_url(rule, alert["id"])).status_code == 200
    assert viewer.get(_url(rule, alert["id"], "events/")).status_code == 200
    assert viewer.post(_url(rule), {"metric": "cost"}, format="json").status_code == 403
    patched = viewer.patch(_url(rule, alert["id"]), {"enabled": False}, format="json")
    assert patched.status_code == 403
    assert viewer.delete(_url(rule, alert["id"])).status_code == 403
    editor = api_client_for(workspace, member("eddie"))
    assert editor.post(_url(rule), {"metric": "cost"}, format="json").status_code == 201


def test_outsiders_get_404_and_cannot_use_acmes_ids(api, outsider_api, outsider, rule):
    alert = api.post(_url(rule), {"metric": "fail_rate"}, format="json").json()
    for method in ("get", "patch", "delete"):
        answer = getattr(outsider_api, method)(_url(rule, alert["id"]), {}, format="json")
        assert answer.status_code == 404, method
    assert outsider_api.get(_url(rule)).status_code == 404
    assert outsider_api.post(_url(rule), {"metric": "cost"}, format="json").status_code == 404
    assert outsider_api.get(_url(rule, alert["id"], "events/")).status_code == 404
    # their own rule with Acme's alert id, or Acme's evaluator version in the body
    theirs = code_rule(outsider.memberships.get().workspace, outsider, name="theirs")
    assert outsider_api.get(_url(theirs, alert["id"])).status_code == 404
    version = rule.evaluators.get().evaluator_version
    body = {"metric": "fail_rate", "evaluator_version": str(version.public_id)}
    answer = outsider_api.post(_url(theirs), body, format="json")
    assert answer.status_code == 400
    assert _details(answer)["evaluator_version"] == ["Not an evaluator version of this rule."]
    assert RuleAlert.objects.count() == 1


def test_an_evaluator_version_of_the_rule_is_chosen(api, rule, workspace, user):
    other = make_code_version(workspace=workspace, user=user, name="Other")
    body = {"metric": "fail_rate", "evaluator_version": str(other.public_id)}
    answer = api.post(_url(rule), body, format="json")
    assert _details(answer)["evaluator_version"] == ["Not an evaluator version of this rule."]


def test_an_alert_enabled_again_starts_from_the_last_closed_window(api, rule):
    alert = api.post(_url(rule), {"metric": "fail_rate"}, format="json").json()
    RuleAlert.objects.update(evaluated_until=datetime(2026, 11, 1, tzinfo=UTC))
    api.patch(_url(rule, alert["id"]), {"enabled": False}, format="json")
    assert api.get(_url(rule, alert["id"])).json()["evaluated_until"] is not None
    answer = api.patch(_url(rule, alert["id"]), {"enabled": True}, format="json")
    assert answer.json()["evaluated_until"] is None  # no backlog of the disabled windows
