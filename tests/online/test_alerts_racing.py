"""Workers racing to decide one alert's windows: processes of their own, on PostgreSQL, each
evaluating the same alert at the same moment. The conditional UPDATE on the last decided
window lets one decide each window: the state counts every window once and each event is
recorded and announced once."""

from __future__ import annotations

import time

import pytest
from django.db import connection

from notifications.models import Event
from online.models import AlertEvent, RuleAlert
from online.services import rule_alert_create
from tests.conftest import require_service
from tests.support.processes import python_scripts

from .test_alerts import HOUR, START, closed, rule  # noqa: F401

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

EVALUATOR = """
import os, sys, time
from datetime import datetime
os.environ["DATABASE_URL"] = sys.argv[1]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "assay.settings")
import django
django.setup()
from online.services import rule_alert_evaluate
alert_id, now, start = int(sys.argv[2]), datetime.fromisoformat(sys.argv[3]), float(sys.argv[4])
while time.time() < start:  # every process evaluates at the same moment
    time.sleep(0.0005)
events = rule_alert_evaluate(alert_id=alert_id, now=now)
print(" ".join(f"{e.action}@{e.window_start:%H}" for e in events))
"""


@pytest.fixture
def database_url():
    """The test database's URL, for the racing processes (PostgreSQL: SQLite's test database
    is in memory, invisible to them)."""
    settings = connection.settings_dict
    require_service("PostgreSQL", connection.vendor == "postgresql", "alert workers race")
    user = settings["USER"] or "postgres"
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    host, port = settings["HOST"] or "127.0.0.1", settings["PORT"] or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


@pytest.mark.parametrize("attempt", range(3))
def test_racing_workers_decide_each_window_once(database_url, rule, user, workspace, attempt):  # noqa: F811
    from notifications.services import endpoint_create

    endpoint_create(
        workspace=workspace,
        user=user,
        url="http://127.0.0.1:9/hook",
        events=["alert.fired", "alert.resolved"],
    )
    alert = rule_alert_create(rule=rule, user=user, fields={"metric": "fail_rate"})
    RuleAlert.objects.filter(pk=alert.pk).update(evaluated_until=START + HOUR * 24)
    start = time.time() + 3  # after every process has started Django
    now = closed(rule, 40).isoformat()
    argvs = [[database_url, str(alert.pk), now, str(start)] for _ in range(3)]
    done = python_scripts(EVALUATOR, argvs, timeout=120)
    assert [code for code, _, _ in done] == [0, 0, 0], [err[-2000:] for *_, err in done]
    announced = sorted(word for _, out, _ in done for word in out.split())
    assert announced == ["fired@06", "resolved@09"]  # START + 30 h and + 33 h
    alert.refresh_from_db()
    # 16 windows decided once each: resolved at 33, then 34..39 counted once
    assert (alert.is_open, alert.quiet_for, alert.evaluated_until) == (
        False,
        6,
        START + HOUR * 40,
    )
    assert AlertEvent.objects.count() == 2 and Event.objects.count() == 2
