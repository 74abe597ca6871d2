"""Two test runs on one machine never share a database or a Redis db.

PostgreSQL: the test database is named after the run's process id. Redis: the run takes the
first free db number (1–15) by setting a lock key in db 0 with NX, flushes it, and points the
broker, the result backend, the rate limiter and the cache at it; the lock is dropped at the
end (and expires on its own if the run is killed).
"""

from __future__ import annotations

import os
import urllib.parse

LOCK_KEY = "assay-test-run-lock:{db}"
LOCK_TTL_S = 4 * 3600


def unique_test_database(settings) -> None:
    """Give the PostgreSQL test database a per-run name (SQLite's already is per process)."""
    db = settings.DATABASES["default"]
    if "postgresql" in db["ENGINE"]:
        db.setdefault("TEST", {})["NAME"] = f"test_{db['NAME']}_{os.getpid()}"


def with_db(url: str, db: int) -> str:
    """`url` with its Redis database number replaced."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path=f"/{db}"))


def claim_redis_db(base_url: str) -> int | None:
    """Lock and flush the first free Redis db for this run; None if none is free or reachable."""
    import redis

    try:
        control = redis.Redis.from_url(with_db(base_url, 0), socket_connect_timeout=2)
        for db in range(1, 16):
            if control.set(LOCK_KEY.format(db=db), os.getpid(), nx=True, ex=LOCK_TTL_S):
                redis.Redis.from_url(with_db(base_url, db)).flushdb()
                return db
    except redis.RedisError:
        return None
    return None


def release_redis_db(base_url: str, db: int) -> None:
    import redis

    try:
        redis.Redis.from_url(with_db(base_url, 0)).delete(LOCK_KEY.format(db=db))
    except redis.RedisError:
        pass


def point_at_redis(settings, url: str) -> None:
    """Every Redis user of the process (settings, the Celery app, the env of child processes)."""
    from assay.celery import app

    os.environ["REDIS_URL"] = url
    settings.REDIS_URL = settings.CELERY_BROKER_URL = settings.CELERY_RESULT_BACKEND = url
    app.conf.update(broker_url=url, result_backend=url)
