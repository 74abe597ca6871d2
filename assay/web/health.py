"""/healthz: database and broker reachability, worker heartbeats and queue depths as JSON; 200
when the database and the broker answer, 503 otherwise."""

from __future__ import annotations

import time

from django.conf import settings
from django.db import connection
from django.http import JsonResponse

from ..celery import app as celery_app
from ..selectors import workers_status


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


def _workers() -> dict:
    try:
        status = workers_status()
    except Exception as exc:  # the database check reports why
        return {"ok": False, "error": type(exc).__name__ + ": " + str(exc)[:200]}
    return {"ok": status.pop("live"), **status}


def _queues() -> dict:
    """Messages waiting in each task queue of the broker (None where it cannot say)."""
    depths: dict = {}
    try:
        with celery_app.connection_for_read() as conn:
            conn.ensure_connection(max_retries=1, timeout=3)
            with conn.channel() as channel:
                for name in settings.CELERY_TASK_QUEUES_NAMES:
                    depths[name] = _depth(channel, name)
    except Exception as exc:  # the broker check reports why
        return {"error": type(exc).__name__ + ": " + str(exc)[:200]}
    return depths


def _depth(channel, name: str) -> int | None:
    size = getattr(channel, "_size", None)  # kombu's virtual transports (Redis, filesystem)
    try:
        if size is not None:
            return int(size(name))
        return channel.queue_declare(queue=name, passive=True).message_count
    except Exception:  # noqa: BLE001 - an undeclared queue holds nothing we can count
        return None


def healthz(request):
    """Report what the platform can reach, whether a worker runs tasks (its heartbeat's age)
    and the queues' depths. Load balancers look at the status code: 503 when the database or
    the broker is unreachable; with no live worker the web still serves (200, "degraded")."""
    checks = {"database": _check(_database), "broker": _check(_broker)}
    healthy = all(check["ok"] for check in checks.values())
    workers = _workers()
    status = "unavailable" if not healthy else "ok" if workers["ok"] else "degraded"
    body = {"status": status, **checks, "workers": workers, "queues": _queues()}
    if request.GET.get("sandbox") != "0":
        body["sandbox"] = _sandbox()
    return JsonResponse(body, status=200 if healthy else 503)
