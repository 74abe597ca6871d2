"""Per-provider rate limits: the local limiter, the Redis limiter, and two worker processes."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from evaluators.llm import LocalRateLimiter, make_limiter, run_llm_batch
from tests.support import llm_fixtures
from tests.support.llm_fixtures import provider_settings
from tests.support.processes import python_scripts

llm_server_factory = llm_fixtures.llm_server_factory
llm_server = llm_fixtures.llm_server
llm_redis_url = llm_fixtures.llm_redis_url

REPO = Path(__file__).resolve().parents[2]
CONFIG = llm_fixtures.RATE_CONFIG
# Arrival times at the server jitter by scheduling; allow one extra request per window for it.
JITTER = 1


def turns(count: int, tag: str = "") -> list[dict[str, Any]]:
    return [
        {"evaluate_dataset_fields": {"x": {"content_type": "Text", "text": f"{tag}-{i}"}}}
        for i in range(count)
    ]


def max_in_window(times: list[float], window: float) -> int:
    """The most requests that arrived within any ``window`` seconds."""
    ordered = sorted(times)
    best, start = 0, 0
    for end, moment in enumerate(ordered):
        while moment - ordered[start] >= window:
            start += 1
        best = max(best, end - start + 1)
    return best


def test_max_in_window_counts_a_sliding_window() -> None:
    assert max_in_window([0.0, 0.1, 0.2, 1.05, 1.1], 1.0) == 3
    assert max_in_window([0.0, 0.5, 0.99, 1.0], 1.0) == 3


def test_local_limiter_spaces_requests_evenly() -> None:
    limiter = LocalRateLimiter()
    waits = [limiter.reserve("provider", 600) for _ in range(5)]
    assert waits[0] == pytest.approx(0.0, abs=0.01)
    gaps = [later - earlier for earlier, later in zip(waits, waits[1:], strict=False)]
    assert gaps == pytest.approx([0.1] * 4, abs=0.01)


def test_local_limiter_burst_lets_the_first_requests_through() -> None:
    limiter = LocalRateLimiter(burst=3)
    waits = [limiter.reserve("provider", 600) for _ in range(4)]
    assert waits[:3] == pytest.approx([0.0] * 3, abs=0.01)
    assert waits[3] == pytest.approx(0.1, abs=0.01)


def test_local_limiter_keys_are_independent() -> None:
    limiter = LocalRateLimiter()
    limiter.reserve("a", 60)
    assert limiter.reserve("b", 60) == pytest.approx(0.0, abs=0.01)
    assert limiter.reserve("a", 60) == pytest.approx(1.0, abs=0.01)


def test_token_budget_delays_by_tokens_per_minute() -> None:
    limiter = LocalRateLimiter()
    # 6000 tokens/min = 100 tokens/s: the second 50-token request waits half a second.
    assert limiter.acquire_sync("p", None, tpm=6000, tokens=50) == pytest.approx(0.0, abs=0.01)
    wait = limiter._reserve_all("p", None, 6000, 50)
    assert wait == pytest.approx(0.5, abs=0.02)


@pytest.mark.parametrize("limiter", [None, "local"])
def test_local_limiter_holds_the_rate_of_a_batch_without_redis(llm_server, limiter) -> None:
    # With no limiter passed, a provider's configured limit still holds (process-local).
    settings = provider_settings(llm_server, rpm_limit=1200, provider_key=f"local-{uuid.uuid4()}")
    chosen = make_limiter(None) if limiter else None
    outcomes = run_llm_batch(CONFIG, turns(12, "local"), settings, concurrency=12, limiter=chosen)
    assert all(o.status == "success" for o in outcomes)
    times = [r.received_at for r in llm_server.chat_requests()]
    # 1200/min is one request per 50 ms: at most 5 (+1 at the edge) in any 250 ms.
    assert max_in_window(times, 0.25) <= 6 + JITTER
    assert max(times) - min(times) >= 11 * 0.05 * 0.9


def test_redis_limiter_spaces_requests_evenly(llm_redis_url) -> None:
    limiter = make_limiter(llm_redis_url)
    key = f"test-{uuid.uuid4()}"
    waits = [limiter.reserve(key, 600) for _ in range(5)]
    assert waits[0] == pytest.approx(0.0, abs=0.02)
    gaps = [later - earlier for earlier, later in zip(waits, waits[1:], strict=False)]
    assert gaps == pytest.approx([0.1] * 4, abs=0.02)


WORKER = """
import sys, time
from evaluators.llm import ProviderSettings, make_limiter, run_llm_batch
base_url, redis_url, key, tag, start_at, count = sys.argv[1:7]
config = {
    "input_variables": [{"name": "x", "content_type": "Text", "required": True}],
    "messages": [{"role": "user", "content": "Rate {{x}}"}],
    "model": {"model": "judge-model", "temperature": 0.0, "max_tokens": 50},
}
turns = [{"evaluate_dataset_fields": {"x": {"content_type": "Text", "text": f"{tag}-{i}"}}}
         for i in range(int(count))]
settings = ProviderSettings(base_url=base_url, api_key="k", rpm_limit=600, provider_key=key)
limiter = make_limiter(redis_url)
time.sleep(max(0.0, float(start_at) - time.time()))
outcomes = run_llm_batch(config, turns, settings, concurrency=8, limiter=limiter)
print(sum(o.status == "success" for o in outcomes))
"""


def test_shared_rate_limit_holds_across_two_worker_processes(llm_server, llm_redis_url) -> None:
    key, count = f"shared-{uuid.uuid4()}", 15
    start_at = time.time() + 3.0  # both workers import first, then start together
    argvs = [
        [llm_server.base_url, llm_redis_url, key, tag, str(start_at), str(count)]
        for tag in ("alpha", "beta")
    ]
    results = python_scripts(WORKER, argvs, timeout=60)
    assert [code for code, _, _ in results] == [0, 0], results
    assert [out.strip() for _, out, _ in results] == [str(count), str(count)]

    requests = llm_server.chat_requests()
    times = [r.received_at for r in requests]
    assert len(times) == 2 * count
    # 600/min shared is one request per 100 ms for both workers together. Each worker alone
    # would be allowed 10/s, so two unshared limiters would put ~20 in a second.
    assert max_in_window(times, 1.0) <= 11 + JITTER
    assert max(times) - min(times) >= (2 * count - 1) * 0.1 * 0.9
    # The workers really ran at the same time: their request periods overlap.
    spans = {}
    for request in requests:
        tag = request.body["messages"][0]["content"].split()[1].split("-")[0]
        spans.setdefault(tag, []).append(request.received_at)
    alpha, beta = spans["alpha"], spans["beta"]
    assert max(min(alpha), min(beta)) < min(max(alpha), max(beta))


def test_redis_limiter_books_a_group_as_consecutive_slots(llm_redis_url) -> None:
    # one round trip books several calls: each waits as many reserve calls in a row would
    limiter = make_limiter(llm_redis_url)
    key = f"test-{uuid.uuid4()}"
    waits = limiter.reserve_group([(key, 600, None, 0)] * 4)
    assert waits == pytest.approx([0.0, 0.1, 0.2, 0.3], abs=0.02)
    after = limiter.reserve(f"{key}:rpm", 600)  # the schedule moved past the whole group
    assert after == pytest.approx(0.4, abs=0.02)
    burst = make_limiter(llm_redis_url, burst=3)
    waits = burst.reserve_group([(f"test-{uuid.uuid4()}", 600, None, 0)] * 5)
    assert waits == pytest.approx([0.0, 0.0, 0.0, 0.1, 0.2], abs=0.02)
    # tokens: 6,000 a minute is 10 ms a token; the later of the request and token slots
    both = f"test-{uuid.uuid4()}"
    waits = limiter.reserve_group(
        [(both, 600, 6000, 10), (both, 600, 6000, 5), (both, 600, 6000, 1)]
    )
    assert waits == pytest.approx([0.0, 0.1, 0.2], abs=0.02)
    tokens = limiter.reserve_group([(both + "t", None, 6000, 30), (both + "t", None, 6000, 1)])
    assert tokens == pytest.approx([0.0, 0.3], abs=0.02)


def test_calls_on_one_event_loop_share_round_trips_and_keep_the_rate(llm_redis_url) -> None:
    # 12 calls asking at once on one loop: each gets its own slot, 100 ms apart, in order
    limiter = make_limiter(llm_redis_url)
    key = f"test-{uuid.uuid4()}"

    async def ask_together() -> list[float]:
        return await asyncio.gather(*[limiter.acquire(key, 600) for _ in range(12)])

    started = time.monotonic()
    waited = asyncio.run(ask_together())
    assert sorted(waited) == pytest.approx([0.1 * i for i in range(12)], abs=0.03)
    assert time.monotonic() - started >= 1.0
