"""/healthz: database and broker reachability as JSON, 200 when both answer, 503 otherwise."""

from __future__ import annotations

import time

from django.db import connection
from django.http import JsonResponse

from ..celery import app as celery_app


def _check(probe) -> dict:
    started = time.perf_counter()
    try:
        probe()
    except Exception as exc:  # the point is to report any failure, whatever it is
        return {"ok": False, "error": type(exc).__name__ + ": " + str(exc)[:200]}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def _broker() -> None:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=3)


def _sandbox() -> dict:
    try:
        import sandbox

        return sandbox.isolation_report()
    except Exception as exc:  # a missing or broken sandbox is reported, not fatal to the probe
        return {"ok": False, "error": type(exc).__name__ + ": " + str(exc)[:200]}


def healthz(request):
    """Report what the platform can reach; load balancers look at the status code."""
    checks = {"database": _check(_database), "broker": _check(_broker)}
    healthy = all(check["ok"] for check in checks.values())
    body = {"status": "ok" if healthy else "unavailable", **checks}
    if request.GET.get("sandbox") != "0":
        body["sandbox"] = _sandbox()
    return JsonResponse(body, status=200 if healthy else 503)
