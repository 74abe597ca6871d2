"""Fixtures for experiment tests with real processes: the test database's URL for worker
processes, a private redis-server, a scripted HTTP app, a code evaluator, and bounded waits
on events."""

import shutil
import time

import pytest
from django.db import connection

from tests.conftest import require_service
from tests.support.app_server import ScriptedApp
from tests.support.factories import make_code_version
from tests.support.fixtures import reset_broker_pools
from tests.support.processes import RedisServer, Worker

# Short leases and a busy reaper, for every worker: a lease is stamped by the claiming worker.
FAST_REAPER = {
    "ASSAY_EXPERIMENT_STALE_S": "3",
    "ASSAY_REAPER_INTERVAL_S": "1",
    "ASSAY_CHUNK_LEASE_S": "3",
}
# No help from the reaper: cancel alone must stop the work.
NO_REAPER = {
    "ASSAY_EXPERIMENT_STALE_S": "600",
    "ASSAY_CHUNK_LEASE_S": "600",
    "ASSAY_REAPER_INTERVAL_S": "600",
}


@pytest.fixture
def app():
    """A scripted local HTTP application for HTTP targets, stopped after the test."""
    with ScriptedApp() as server:
        yield server


@pytest.fixture
def contains(workspace, user):
    """The workspace's default code evaluator (reference_output contained in actual_output)."""
    return make_code_version(workspace=workspace, user=user)


@pytest.fixture
def postgres_url():
    settings = connection.settings_dict
    require_service(
        "PostgreSQL",
        connection.vendor == "postgresql",
        "worker processes must share the test database",
    )
    user = settings["USER"] or "postgres"
    password = f":{settings['PASSWORD']}" if settings["PASSWORD"] else ""
    host, port = settings["HOST"] or "127.0.0.1", settings["PORT"] or 5432
    return f"postgres://{user}{password}@{host}:{port}/{settings['NAME']}"


@pytest.fixture
def redis_server():
    from assay.celery import app

    require_service("redis-server", shutil.which("redis-server") is not None)
    server = RedisServer().start()
    saved = app.conf.broker_url
    app.conf.broker_url = server.url
    reset_broker_pools(app)
    yield server
    app.conf.broker_url = saved
    reset_broker_pools(app)
    server.kill()


def wait_for(predicate, timeout: float, what: str, workers=()):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    logs = "\n".join(w.output()[-3000:] for w in workers)
    raise AssertionError(f"timed out waiting for {what}\n{logs}")


@pytest.fixture
def worker(postgres_url, redis_server):
    """Start real worker processes (with beat and a fast reaper) on the test database and a
    private Redis: `worker(concurrency=2, queues="default,code,llm", **env)`."""
    started = []

    def start(concurrency=2, queues=None, **env):
        process = Worker(
            database_url=postgres_url,
            redis_url=redis_server.url,
            beat=True,
            concurrency=concurrency,
            extra_env={**FAST_REAPER, **env},
            **({"queues": queues} if queues else {}),
        ).start()
        started.append(process)
        return process

    yield start
    for process in started:
        process.stop()
