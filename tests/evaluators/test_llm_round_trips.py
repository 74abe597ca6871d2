"""What a judged row costs besides its HTTP call: the round trips to Redis a batch makes for
its response cache, its run-wide slots and its rate limit. Counted on the real Redis client
(a proxy that counts the calls reaching it), against the real scripted server."""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import redis

from evaluators.llm import RedisCache, run_llm_batch
from tests.evaluators.test_llm_client import CONFIG, turn
from tests.support import llm_fixtures
from tests.support.llm_fixtures import provider_settings

llm_server = llm_fixtures.llm_server
llm_redis_url = llm_fixtures.llm_redis_url

ROWS = 40


class CountingRedis:
    """A redis client whose round trips are counted by command (a pipeline is one)."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.client, name)
        if name not in {"get", "set", "mget", "pipeline"}:
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return attribute(*args, **kwargs)

        return counted


def test_a_batch_reads_and_writes_the_redis_cache_in_a_few_round_trips(
    llm_server, llm_redis_url
) -> None:
    settings = provider_settings(llm_server)
    version = f"v-{uuid.uuid4()}"
    turns = [turn("", i) for i in range(ROWS)]
    first = CountingRedis(llm_redis_url)
    outcomes = run_llm_batch(
        CONFIG, turns, settings, cache=RedisCache(first, ttl_s=60), version_key=version
    )
    assert [o.status for o in outcomes] == ["success"] * ROWS
    assert not any(o.cached for o in outcomes)
    # one read of every key, the answers written in a few groups (was a GET and a SET a row)
    assert first.calls["get"] == first.calls["set"] == 0
    assert first.calls["mget"] == 1 and 1 <= first.calls["pipeline"] <= 4

    again = CountingRedis(llm_redis_url)
    repeated = run_llm_batch(
        CONFIG, turns, settings, cache=RedisCache(again, ttl_s=60), version_key=version
    )
    assert all(o.cached and o.score == 0.8 for o in repeated)
    assert len(llm_server.chat_requests()) == ROWS  # the second batch sent nothing
    assert dict(again.calls) == {"mget": 1}


def test_a_row_later_in_the_batch_hits_what_an_earlier_row_stored(
    llm_server, llm_redis_url
) -> None:
    settings = provider_settings(llm_server)
    store = RedisCache(CountingRedis(llm_redis_url), ttl_s=60)
    same = [turn("", 7), turn("", 7)]
    first, second = run_llm_batch(
        CONFIG, same, settings, cache=store, version_key=f"v-{uuid.uuid4()}", concurrency=1
    )
    assert not first.cached and second.cached
    assert len(llm_server.chat_requests()) == 1
