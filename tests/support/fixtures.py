"""Fixtures with moving parts: a real Celery worker and a headless browser."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ARTIFACTS = Path(__file__).resolve().parent.parent.parent / "artifacts" / "screenshots"


@pytest.fixture
def celery_worker_inproc(transactional_db):
    """A real worker consuming from the configured broker (Redis in CI, in-memory locally).

    Ask for it before fixtures that launch runs: without Redis, a message sent before the
    worker switched the broker to memory goes where this worker never looks.

    With no REDIS_URL the in-memory transport is used so the worker thread and the test share
    one broker; tasks still cross a real broker, serialisation and a real worker loop.
    """
    from celery.contrib.testing.worker import start_worker
    from celery.signals import task_postrun
    from django.db import connections

    from assay.celery import app

    def close_connections(**kwargs):
        # The worker thread's own connections; a real worker's Django fix-up does the same.
        connections.close_all()

    task_postrun.connect(close_connections, weak=False)

    saved = {k: app.conf[k] for k in ("broker_url", "result_backend", "broker_transport_options")}
    if not os.environ.get("REDIS_URL"):
        app.conf.update(
            broker_url="memory://", result_backend="cache+memory://", broker_transport_options={}
        )
        reset_broker_pools(app)
    try:
        with start_worker(
            app,
            pool="solo",
            perform_ping_check=False,
            shutdown_timeout=30,
            queues=["default", "code", "llm"],
        ) as worker:
            yield worker
    finally:
        task_postrun.disconnect(close_connections)
        app.conf.update(saved)
        reset_broker_pools(app)


def reset_broker_pools(app) -> None:
    """Drop cached broker connections so the next publish uses the current broker_url
    (a producer made earlier in the session would still point at the old broker), and the
    cached result backend: a test that ran `task.apply()` with none configured left celery's
    disabled backend on this thread, and a later `.get()` raised NotImplementedError."""
    from kombu import pools

    pools.reset()
    app._pool = None
    app.amqp._producer_pool = None
    app._backend_cache = None
    app._local.__dict__.pop("backend", None)


@pytest.fixture
def browser(chromium_path):
    """Headless Chromium driven by Playwright, launched from the system binary."""
    from django.db import connections
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread; the test's own ORM
    # calls are still synchronous, so Django's async-safety guard must stand down here.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as pw:
        instance = pw.chromium.launch(
            executable_path=chromium_path,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
            ],
        )
        yield instance
        instance.close()
        # Playwright's sync API runs the test in a greenlet with its own context variables,
        # where Django keeps its connections: close them here, or one stays open after the
        # run and the test database cannot be dropped.
        connections.close_all()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1360, "height": 900})
    page = context.new_page()
    page.console_errors = []
    page.on("pageerror", lambda exc: page.console_errors.append(str(exc)))
    # A script or handler our CSP blocks is a bug in the page: report it like an exception.
    page.on("console", lambda msg: _csp_violation(page, msg))
    yield page
    context.close()


def _csp_violation(page, message) -> None:
    if message.type == "error" and "Content Security Policy" in message.text:
        page.console_errors.append(message.text)


def wait_until(page, predicate: str, timeout_s: float = 15.0) -> None:
    """Poll a JS expression until it is truthy. `page.wait_for_function` evaluates its string
    inside the page, which our CSP (rightly) forbids; `page.evaluate` is not subject to it."""
    import time

    deadline = time.monotonic() + timeout_s
    while not page.evaluate(predicate):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for: {predicate}")
        page.wait_for_timeout(50)


def screenshot(page, name: str) -> Path:
    """Keep a screenshot as a CI artefact under artifacts/screenshots/."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def open_dialog(page, opener: str, dialog: str) -> None:
    """Click a button whose <dialog> the page's deferred script opens, once that script ran (a
    click before it did nothing, and the next step timed out on a hidden field), and wait for
    the dialog to be open."""
    page.wait_for_load_state()
    page.click(opener)
    page.wait_for_selector(f"{dialog}[open]")


def sign_in(page, live_server, username: str = "alice") -> None:
    """Sign in through the real form and land in the user's workspace."""
    from tests.conftest import PASSWORD

    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/w/*/evaluators/")
