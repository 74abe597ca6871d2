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
import weakref
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from typing import Any

from .spawn import spawned

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

# The same booking of ARGV[2] units at once, returning {the µs to wait before the first, the
# µs from now to the start of the booked block}: the n-th unit is due at block + its offset.
_GCRA_MANY_LUA = _GCRA_LUA.replace(
    "return allowed_at - now", "return {allowed_at - now, math.max(tat, allowed_at) - now}"
)


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

    def __init__(
        self,
        client: Any,
        burst: int = 1,
        prefix: str = _REDIS_KEY_PREFIX,
        async_client: Callable[[], Any] | None = None,
    ) -> None:
        super().__init__(burst)
        self._client = client
        self._async_client = async_client  # makes a redis.asyncio client: no thread a booking
        self._prefix = prefix
        self._script = client.register_script(_GCRA_LUA)
        self._many = client.register_script(_GCRA_MANY_LUA)
        self._bookings: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def reserve(self, key: str, per_minute: float, cost: float = 1) -> float:
        """Book ``cost`` units on ``key``'s schedule in Redis; return the seconds to wait."""
        interval_us = round(60_000_000 / per_minute)
        tolerance_us = round(self._tolerance(interval_us))
        args = [interval_us, round(cost), tolerance_us]
        wait_us = self._script(keys=[self._prefix + key], args=args)
        return max(0, int(wait_us)) / 1_000_000

    def reserve_group(self, asked: list[tuple]) -> list[float]:
        """``_reserve_all`` for each (provider key, rpm, tpm, tokens), booked one after the
        other in one round trip a schedule; the wait of each is the later of its two slots."""
        return _group_waits(asked, lambda key, args: self._many(keys=[key], args=args), self)

    async def areserve_group(self, asked: list[tuple], script: Any) -> list[float]:
        """``reserve_group`` through a redis.asyncio client's registered ``script``."""
        found = {}
        for key, args in _group_bookings(asked, self):
            found[key] = await script(keys=[key], args=args)
        return _group_waits(asked, lambda key, _args: found[key], self)

    async def _reserve_async(
        self, provider_key: str, rpm: float | None, tpm: float | None, tokens: int
    ) -> float:
        # The calls of one event loop that ask while a booking is under way are booked together
        # next, over a redis.asyncio client of that loop (else the thread-safe sync client in a
        # thread: batches open their own loops).
        loop = asyncio.get_running_loop()
        bookings = self._bookings.get(loop)
        if bookings is None:
            bookings = self._bookings[loop] = _Bookings(self)
        return await bookings.book((provider_key, rpm, tpm, tokens))


def _schedules(asked: list[tuple]) -> dict[tuple[str, float], list[tuple[int, int]]]:
    """(schedule key, per minute) → [(index in `asked`, units)] of each booking asked."""
    schedules: dict[tuple[str, float], list[tuple[int, int]]] = defaultdict(list)
    for index, (provider_key, rpm, tpm, tokens) in enumerate(asked):
        if rpm:
            schedules[(f"{provider_key}:rpm", rpm)].append((index, 1))
        if tpm and tokens > 0:
            schedules[(f"{provider_key}:tpm", tpm)].append((index, round(tokens)))
    return schedules


def _group_bookings(asked: list[tuple], limiter: RedisRateLimiter) -> list[tuple[str, list]]:
    """(Redis key, script arguments) of each schedule's one booking of all its units."""
    bookings = []
    for (key, per_minute), booked in _schedules(asked).items():
        interval_us = round(60_000_000 / per_minute)
        units = sum(unit for _index, unit in booked)
        bookings.append(
            (limiter._prefix + key, [interval_us, units, _tolerance_us(limiter, interval_us)])
        )
    return bookings


def _group_waits(asked: list[tuple], book: Callable, limiter: RedisRateLimiter) -> list[float]:
    """Each asked booking's wait, its schedule booked by `book(key, args)` → (µs to the first
    unit, µs to the start of the block): a unit is due at the block's start plus the units
    before it, as consecutive single bookings would be (never before the first)."""
    waits = [0.0] * len(asked)
    for (key, per_minute), booked in _schedules(asked).items():
        interval_us = round(60_000_000 / per_minute)
        tolerance_us = _tolerance_us(limiter, interval_us)
        args = [interval_us, sum(unit for _index, unit in booked), tolerance_us]
        first_us, block_us = book(limiter._prefix + key, args)
        offset_us = 0
        for index, unit in booked:
            due_us = max(int(first_us), int(block_us) + offset_us - tolerance_us)
            waits[index] = max(waits[index], max(0, due_us) / 1_000_000)
            offset_us += unit * interval_us
    return waits


def _tolerance_us(limiter: RateLimiter, interval_us: int) -> int:
    return round(limiter._tolerance(interval_us))


class _Bookings:
    """One event loop's bookings in Redis: the first is sent at once; those asked meanwhile
    wait and go together in the next round trip (64 calls starting together: 2 round trips).
    With an async client factory the round trips run on the loop itself (about a third of the
    CPU of a blocking call in a thread); its connection closes with the loop's async
    generators, which asyncio.run shuts down."""

    def __init__(self, limiter: RedisRateLimiter) -> None:
        self._limiter = limiter
        self._waiting: list[tuple[tuple, asyncio.Future]] = []
        self._sending = False
        self._holder: AsyncIterator[Any] | None = None
        self._script: Any = None

    async def book(self, asked: tuple) -> float:
        future = asyncio.get_running_loop().create_future()
        self._waiting.append((asked, future))
        if not self._sending:
            self._sending = True
            spawned(self._send())
        return await future

    async def _send(self) -> None:
        try:
            while self._waiting:
                group, self._waiting = self._waiting, []
                try:
                    waits = await self._reserve([asked for asked, _ in group])
                except Exception as exc:  # each caller sees the failure, as it did alone
                    waits = [exc] * len(group)
                for (_asked, future), wait in zip(group, waits, strict=True):
                    _settle(future, wait)
        finally:
            self._sending = False

    async def _reserve(self, asked: list[tuple]) -> list[float]:
        if self._limiter._async_client is None:
            return await asyncio.to_thread(self._limiter.reserve_group, asked)
        if self._script is None:
            self._holder = _loop_client(self._limiter._async_client)
            client = await anext(self._holder)
            self._script = client.register_script(_GCRA_MANY_LUA)
        return await self._limiter.areserve_group(asked, self._script)


async def _loop_client(factory: Callable[[], Any]) -> AsyncIterator[Any]:
    """A redis.asyncio client for the running loop, closed when the loop shuts down its
    async generators (asyncio.run does before it closes the loop)."""
    client = factory()
    try:
        yield client
    finally:
        await client.aclose()


def _settle(future: asyncio.Future, wait: float | BaseException) -> None:
    if future.done():  # its caller was cancelled meanwhile: the slot stays booked, unused
        return
    if isinstance(wait, BaseException):
        future.set_exception(wait)
    else:
        future.set_result(wait)


_local_limiter = LocalRateLimiter()


def make_limiter(redis_url: str | None, *, burst: int = 1) -> RateLimiter:
    """A Redis limiter when ``redis_url`` is set, else the process-wide local limiter."""
    if not redis_url:
        return _local_limiter if burst == 1 else LocalRateLimiter(burst)
    import redis
    import redis.asyncio

    return RedisRateLimiter(
        redis.Redis.from_url(redis_url),
        burst=burst,
        async_client=lambda: redis.asyncio.Redis.from_url(redis_url),
    )
