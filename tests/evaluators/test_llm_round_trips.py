"""What a judged row costs besides its HTTP call: the round trips to Redis a batch makes for
its response cache, its run-wide slots and its rate limit. Counted on the real Redis client
(a proxy that counts the calls reaching it), against the real scripted server."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from typing import Any

import redis
from redis.commands.core import Script

from evaluators.llm import (
    MemoryCache,
    RedisCache,
    RedisRateLimiter,
    run_completion_batch,
    run_llm_batch,
)
from evaluators.llm.slots import RunLimit
from tests.evaluators.test_llm_client import CONFIG, turn
from tests.evaluators.test_run_slots import run_in_threads
from tests.support import llm_fixtures
from tests.support.llm_fixtures import provider_settings
from tests.support.processes import python_scripts

llm_server = llm_fixtures.llm_server
llm_server_factory = llm_fixtures.llm_server_factory
llm_redis_url = llm_fixtures.llm_redis_url

ROWS = 40


class CountingRedis:
    """A redis client whose round trips are counted by command (a pipeline is one)."""

    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)
        self.calls: Counter[str] = Counter()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self.client, name)
        if name not in {"get", "set", "mget", "pipeline", "evalsha"}:
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return attribute(*args, **kwargs)

        return counted

    def register_script(self, script: str) -> Script:
        return Script(self, script)  # its calls go through this client, counted


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


class Monitor:
    """Redis MONITOR in a thread: the commands that name `needle` (a run's slot key)."""

    def __init__(self, url: str, needle: str) -> None:
        self.needle, self.commands = needle, []
        self._connection = redis.Redis.from_url(url).monitor().__enter__()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            for entry in self._connection.listen():
                if self.needle in entry["command"]:
                    self.commands.append(entry["command"].split()[0].upper())
        except Exception:  # the connection closed: the test is done
            return

    def stop(self) -> Counter[str]:
        time.sleep(0.2)  # the last commands reach the monitor
        self._connection.connection.disconnect()
        return Counter(self.commands)


def test_a_batch_on_free_run_slots_takes_and_gives_them_back_in_a_few_round_trips(
    llm_server, llm_redis_url
) -> None:
    key = f"experiment:{uuid.uuid4()}:judge"
    settings = provider_settings(llm_server)
    monitor = Monitor(llm_redis_url, key)
    time.sleep(0.2)  # the monitor is listening
    outcomes = run_llm_batch(
        CONFIG,
        [turn("", i) for i in range(ROWS)],
        settings,
        concurrency=8,
        run_limit=RunLimit(key, llm_redis_url),
    )
    commands = monitor.stop()
    assert [o.status for o in outcomes] == ["success"] * ROWS
    assert llm_server.max_in_flight <= 8
    # slots taken for every waiting call at once, handed from a finished call to the next
    # without Redis, given back together at the end, and a look every 25 ms for another
    # batch of the run waiting (was a take and a give-back a call: 80)
    # (the 25 ms looks scale with how long the batch runs, so the bound is half a script a row,
    # far below the 2 a row of taking and giving back per call)
    scripts = commands["EVALSHA"] + commands["EVAL"]
    assert 1 <= scripts <= ROWS // 2, commands
    assert redis.Redis.from_url(llm_redis_url).zcard(f"assay:slots:{key}") == 0


SDK_FREE = """
import sys
from evaluators.llm import ProviderSettings, run_llm_batch
from tests.evaluators.test_llm_client import CONFIG, turn
settings = ProviderSettings(base_url=sys.argv[1], api_key="k")
outcomes = run_llm_batch(CONFIG, [turn("", 1), turn("500,clean", 2)], settings)
print([o.status for o in outcomes], "openai" in sys.modules)
"""


def test_a_judge_batch_posts_the_body_itself_without_the_sdk(llm_server) -> None:
    # the SDK's request building and its import were a third of a judged row's CPU
    [(code, out, err)] = python_scripts(SDK_FREE, [[llm_server.base_url]], timeout=60)
    assert code == 0, err
    assert out.split() == ["['success',", "'success']", "False"]
    requests = llm_server.chat_requests()
    assert len(requests) == 3  # the 500 was retried, as before
    for request in requests:
        assert request.headers["authorization"] == "Bearer k"
        assert request.headers["content-type"] == "application/json"
        assert request.body["model"] == "judge-model"


PAIR_ROWS = 80


def test_two_batches_of_one_run_split_its_slots_and_hand_them_on_without_redis(
    llm_server_factory, llm_redis_url
) -> None:
    server = llm_server_factory(latency_s=0.05)
    key = f"experiment:{uuid.uuid4()}:judge"
    settings = provider_settings(server)
    monitor = Monitor(llm_redis_url, key)
    time.sleep(0.2)

    def batch(tag: int):
        turns = [turn("", 1000 * tag + i) for i in range(PAIR_ROWS)]
        return lambda: run_llm_batch(
            CONFIG, turns, settings, concurrency=8, run_limit=RunLimit(key, llm_redis_url)
        )

    outcomes = run_in_threads(batch(1), batch(2))
    commands = monitor.stop()
    assert [sum(o.status == "success" for o in part) for part in outcomes] == [PAIR_ROWS, PAIR_ROWS]
    assert server.max_in_flight == 8
    received = {1: [], 2: []}
    for request in server.chat_requests():
        text = request.body["messages"][-1]["content"]
        received[1 if "Q1" in text.split("Question: ")[1][:2] else 2].append(request.received_at)
    assert max(min(received[1]), min(received[2])) < min(max(received[1]), max(received[2]))
    # each batch hands its half of the slots on by itself: the scripts that took or gave back
    # slots (all but the 25 ms looks at who waits, one ZSCORE each, and the tries of a batch
    # that found the run full, one BLPOP after each) were a take and a give-back a call, 320;
    # how often the two batches trade slots grows with how they interleave (87 seen on a busy
    # CI machine, 17 on a quiet one), so the bound is one script a call, half of that
    moved = commands["EVALSHA"] - commands["ZSCORE"] - commands["BLPOP"]
    assert moved < 2 * PAIR_ROWS, commands


def test_a_prompt_batch_caches_in_a_memory_cache_that_starts_empty(llm_server) -> None:
    """A fresh MemoryCache has len 0; the batch must still key and store into it (an empty
    store was taken for no store, so a rerun without Redis asked the provider again)."""
    settings = provider_settings(llm_server)
    store = MemoryCache()
    requests = [
        {"model": "m", "messages": [{"role": "user", "content": f"q{i}"}]} for i in range(3)
    ]
    first = run_completion_batch(requests, settings, cache=store, cache_namespace="ns")
    assert [r.status for r in first] == ["success"] * 3 and len(store) == 3
    again = run_completion_batch(requests, settings, cache=store, cache_namespace="ns")
    assert all(r.cached for r in again)
    assert len(llm_server.chat_requests()) == 3  # the rerun sent nothing


def test_a_batch_books_its_rate_limit_slots_in_a_few_round_trips(llm_server, llm_redis_url) -> None:
    """The calls that ask for a rate-limit slot while a booking is under way are booked
    together in the next round trip (was one script call, in its own thread, a call)."""
    settings = provider_settings(llm_server, rpm_limit=12_000, provider_key=f"rt-{uuid.uuid4()}")
    counting = CountingRedis(llm_redis_url)
    limiter = RedisRateLimiter(counting)
    turns = [turn("", i) for i in range(ROWS)]
    outcomes = run_llm_batch(CONFIG, turns, settings, concurrency=ROWS, limiter=limiter)
    assert [o.status for o in outcomes] == ["success"] * ROWS
    assert 1 <= counting.calls["evalsha"] <= ROWS // 4, counting.calls
    # each call got its own slot on the schedule: 12,000/min is one every 5 ms
    times = sorted(r.received_at for r in llm_server.chat_requests())
    assert times[-1] - times[0] >= (ROWS - 1) * 0.005 * 0.9
