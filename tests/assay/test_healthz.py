"""/healthz reports database and broker reachability (and the workers: test_worker_health.py)."""

import pytest

pytestmark = pytest.mark.django_db


def test_healthz_ok(client):
    response = client.get("/healthz?sandbox=0")
    assert response.status_code == 200
    body = response.json()
    # no worker beats in this test: the web still serves (test_worker_health.py has the rest)
    assert body["status"] == "degraded" and body["workers"]["ok"] is False
    assert body["database"]["ok"] is True and body["broker"]["ok"] is True


def test_healthz_reports_unreachable_broker(client, settings):
    from assay.celery import app

    saved = app.conf.broker_url
    app.conf.broker_url = "redis://127.0.0.1:1/0"
    try:
        response = client.get("/healthz?sandbox=0")
    finally:
        app.conf.broker_url = saved
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable" and body["broker"]["ok"] is False
    assert body["database"]["ok"] is True


def test_healthz_reports_sandbox_isolation(client):
    body = client.get("/healthz").json()
    assert body["sandbox"]["level"] in {"strong", "standard", "degraded"}
    assert "network_namespace" in body["sandbox"]
