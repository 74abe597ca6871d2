"""Per-provider request (and token) rate limits.

Both limiters use GCRA with reservations: each caller atomically books the next free slot and
sleeps until it, so there is no polling and callers are served in order. With the default burst
of 1 the requests are spread evenly (one every ``60 / rpm`` seconds), which also satisfies
providers that enforce per-minute limits per second. The Redis limiter keeps the schedule in
one key per provider, updated by a Lua script using the Redis clock, so every worker on every
machine shares the same schedule; the local limiter does the same in process memory for the
embedded default (one worker process, no Redis).
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

_REDIS_KEY_PREFIX = "assay:ratelimit:"

# KEYS[1]: schedule key. ARGV: interval per unit (µs), cost (units), tolerance (µs).
# Returns the µs to wait before the booked slot. TIME makes the clock the same for all workers.
_GCRA_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local increment = tonumber(ARGV[1]) * tonumber(ARGV[2])
local tolerance = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local allowed_at = math.max(now, tat - tolerance)
local new_tat = math.max(tat, allowed_at) + increment
local ttl_ms = math.ceil((new_tat - now) / 1000) + 1000
redis.call('SET', KEYS[1], string.format('%.0f', new_tat), 'PX', ttl_ms)
return allowed_at - now
"""


class RateLimiter:
    """Shared interface: ``acquire`` books a slot for a provider and waits until it is due."""

    def __init__(self, burst: int = 1) -> None:
        self.burst = max(1, burst)

    def reserve(self, key: str, per_minute: float, cost: float = 1) -> float:
        """Book ``cost`` units on ``key``'s schedule; return the seconds to wait."""
        raise NotImplementedError

    async def acquire(
        self, provider_key: str, rpm: float | None, *, tpm: float | None = None, tokens: int = 0
    ) -> float:
        """Wait for a request slot (and ``tokens`` of token budget); return seconds waited."""
        delay = await self._reserve_async(provider_key, rpm, tpm, tokens)
        if delay > 0:
            await asyncio.sleep(delay)
        return delay

    def acquire_sync(
        self, provider_key: str, rpm: float | None, *, tpm: float | None = None, tokens: int = 0
    ) -> float:
        """Blocking ``acquire`` for synchronous callers."""
        delay = self._reserve_all(provider_key, rpm, tpm, tokens)
        if delay > 0:
            time.sleep(delay)
        return delay

    async def _reserve_async(
        self, provider_key: str, rpm: float | None, tpm: float | None, tokens: int
    ) -> float:
        return self._reserve_all(provider_key, rpm, tpm, tokens)

    def _reserve_all(
        self, provider_key: str, rpm: float | None, tpm: float | None, tokens: int
    ) -> float:
        """Book the request and the token budget; the wait is the later of the two slots."""
        delay = 0.0
        if rpm:
            delay = self.reserve(f"{provider_key}:rpm", rpm)
        if tpm and tokens > 0:
            delay = max(delay, self.reserve(f"{provider_key}:tpm", tpm, tokens))
        return delay

    def _tolerance(self, interval: float) -> float:
        """How far ahead of schedule a caller may go: ``burst - 1`` intervals."""
        return (self.burst - 1) * interval


class LocalRateLimiter(RateLimiter):
    """In-process GCRA limiter (threads and event loops of one process share it)."""

    def __init__(self, burst: int = 1) -> None:
        super().__init__(burst)
        self._lock = threading.Lock()
        self._tat: dict[str, float] = {}

    def reserve(self, key: str, per_minute: float, cost: float = 1) -> float:
        """Book ``cost`` units on ``key``'s schedule; return the seconds to wait."""
        interval = 60.0 / per_minute
        with self._lock:
            now = time.monotonic()
            tat = self._tat.get(key, now)
            allowed_at = max(now, tat - self._tolerance(interval))
            self._tat[key] = max(tat, allowed_at) + interval * cost
        return allowed_at - now


class RedisRateLimiter(RateLimiter):
    """GCRA limiter whose schedule lives in Redis, shared by every worker process."""

    def __init__(self, client: Any, burst: int = 1, prefix: str = _REDIS_KEY_PREFIX) -> None:
        super().__init__(burst)
        self._client = client
        self._prefix = prefix
        self._script = client.register_script(_GCRA_LUA)

    def reserve(self, key: str, per_minute: float, cost: float = 1) -> float:
        """Book ``cost`` units on ``key``'s schedule in Redis; return the seconds to wait."""
        interval_us = round(60_000_000 / per_minute)
        tolerance_us = round(self._tolerance(interval_us))
        args = [interval_us, round(cost), tolerance_us]
        wait_us = self._script(keys=[self._prefix + key], args=args)
        return max(0, int(wait_us)) / 1_000_000

    async def _reserve_async(
        self, provider_key: str, rpm: float | None, tpm: float | None, tokens: int
    ) -> float:
        # The sync client is thread-safe and works with any event loop (batches open their own).
        return await asyncio.to_thread(self._reserve_all, provider_key, rpm, tpm, tokens)


_local_limiter = LocalRateLimiter()


def make_limiter(redis_url: str | None, *, burst: int = 1) -> RateLimiter:
    """A Redis limiter when ``redis_url`` is set, else the process-wide local limiter."""
    if not redis_url:
        return _local_limiter if burst == 1 else LocalRateLimiter(burst)
    import redis

    return RedisRateLimiter(redis.Redis.from_url(redis_url), burst=burst)
