"""Pytest fixtures for LLM tests: a scripted OpenAI-compatible server and provider settings.

Register with ``pytest_plugins = ["tests.support.llm_fixtures"]`` in a top-level conftest, or
import the fixtures into a test module.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator

import pytest

from evaluators.llm import ProviderSettings

from .llm_server import ScriptedLlmServer

TEST_API_KEY = "sk-test-assay-0123456789"
# a one-variable judge ("Rate {{x}}") for the tests of the call path's limits
RATE_CONFIG: dict = {
    "input_variables": [{"name": "x", "content_type": "Text", "required": True, "description": ""}],
    "messages": [{"role": "user", "content": "Rate {{x}}"}],
    "model": {"provider_id": None, "model": "judge-model", "temperature": 0.0, "max_tokens": 50},
}


@pytest.fixture
def llm_server_factory() -> Iterator[Callable[..., ScriptedLlmServer]]:
    """Start scripted servers (``make(latency_s=0.05)``); all are stopped after the test."""
    servers: list[ScriptedLlmServer] = []

    def make(**options: object) -> ScriptedLlmServer:
        server = ScriptedLlmServer(**options).start()  # type: ignore[arg-type]
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def llm_server(llm_server_factory: Callable[..., ScriptedLlmServer]) -> ScriptedLlmServer:
    """A running scripted server with no added latency."""
    return llm_server_factory()


@pytest.fixture
def llm_settings(llm_server: ScriptedLlmServer) -> ProviderSettings:
    """Settings for ``llm_server`` with short backoffs so retry tests stay quick."""
    return provider_settings(llm_server)


def provider_settings(server: ScriptedLlmServer, **overrides: object) -> ProviderSettings:
    """ProviderSettings pointing at ``server`` (tests override what they exercise)."""
    values: dict[str, object] = {
        "base_url": server.base_url,
        "api_key": TEST_API_KEY,
        "model": "judge-model",
        "timeout_s": 5.0,
        "structured_mode": "json_schema",
        "max_retries": 3,
        "provider_key": f"test-{server.port}",
        "deadline_s": 30.0,
        "backoff_base_s": 0.01,
        "backoff_cap_s": 0.05,
    }
    values.update(overrides)
    return ProviderSettings(**values)  # type: ignore[arg-type]


@pytest.fixture
def llm_redis_url() -> str:
    """The run's own Redis db (see tests.support.isolation); skip without REDIS_URL unless CI
    requires it."""
    url = os.environ.get("REDIS_URL")
    if not url:
        _unavailable("REDIS_URL is not set (these tests need a Redis server)")
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except Exception as exc:  # any failure to reach Redis means "service unavailable"
        _unavailable(f"cannot reach Redis at {url}: {exc}")
    return url


def _unavailable(message: str) -> None:
    """Skip locally; fail when ASSAY_REQUIRE_SERVICES=1 (set in CI)."""
    if os.environ.get("ASSAY_REQUIRE_SERVICES") == "1":
        pytest.fail(f"{message} (ASSAY_REQUIRE_SERVICES=1 forbids skipping)")
    pytest.skip(message)
