"""A run's call slots: at most ``limit`` calls of one run in flight across every worker.

A batch's ``ClientPool`` bounds its own calls, but a run's chunks execute in several worker
processes (and machines) at once, each with its own pool. ``RunSlots`` is the run-wide bound
on top: before a call, its pool takes a lease from a semaphore the whole run shares.

With Redis the semaphore is a sorted set per run (``RunLimit.key`` names the run and the kind
of call) whose members are lease tokens scored by their expiry on the Redis clock. One Lua
script drops expired leases and takes a slot when fewer than ``limit`` are held; releasing
removes the token and pushes a notification that wakes one waiter (a blocking pop, so a freed
slot is taken again within a round trip and the provider stays at ``limit``). A holder renews
its leases every ``lease_s / 3``; a killed worker's leases lapse after ``lease_s`` and its
slots come back by themselves. Without Redis (the embedded default: one worker process) the
count lives in this process, shared by every batch and event loop of the same key.

Only one coroutine of a batch waits for the shared semaphore at a time (the others queue
behind it in process), so a chunk of 20,000 turns asks Redis once per call, not once per
waiting turn.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from dataclasses import dataclass

LEASE_S = 30.0
WAIT_S = 0.05  # the longest blocking wait for a notification before trying again
LOCAL_POLL_S = 0.002
_PREFIX = "assay:slots:"

# KEYS: leases, notifications. ARGV: limit, lease (ms), token. 1: taken, 0: all held.
_ACQUIRE_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
"""

# KEYS: leases, notifications. ARGV: limit, lease (ms), tokens... One notification per slot
# freed; the list never holds more than `limit` (stale ones cost a waiter one retry).
_RELEASE_LUA = """
local freed = 0
for i = 3, #ARGV do freed = freed + redis.call('ZREM', KEYS[1], ARGV[i]) end
for i = 1, freed do redis.call('RPUSH', KEYS[2], '1') end
if freed > 0 then
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[1]), -1)
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]))
end
return freed
"""

# KEYS: leases. ARGV: lease (ms), tokens... XX: a lease that already lapsed is not revived.
_RENEW_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
"""


@dataclass(frozen=True)
class RunLimit:
    """Which run's slots a batch shares: its key (run id and kind of call) and the Redis that
    holds them (None: this process only)."""

    key: str
    redis_url: str | None = None
    lease_s: float = LEASE_S


class RunSlots:
    """Shared interface: ``acquire`` waits for a slot and returns its token."""

    async def acquire(self) -> str:
        raise NotImplementedError

    async def release(self, token: str) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        """Give back every slot still held (a cancelled batch's) and drop connections."""


def run_slots_open(run_limit: RunLimit, limit: int) -> RunSlots:
    """The run's slots for this event loop: in Redis when it has a URL, else in process."""
    limit = max(1, limit)
    if run_limit.redis_url:
        return RedisRunSlots(run_limit, limit)
    return LocalRunSlots(run_limit.key, limit)


class RedisRunSlots(RunSlots):
    """Leases in a Redis sorted set shared by every worker of the run."""

    def __init__(self, run_limit: RunLimit, limit: int) -> None:
        import redis.asyncio

        self._redis = redis.asyncio.Redis.from_url(run_limit.redis_url)
        self._keys = [_PREFIX + run_limit.key, _PREFIX + run_limit.key + ":free"]
        self._limit, self._lease_ms = limit, round(run_limit.lease_s * 1000)
        self._scripts = [self._redis.register_script(s) for s in (_ACQUIRE_LUA, _RELEASE_LUA)]
        self._renew = self._redis.register_script(_RENEW_LUA)
        self._held: set[str] = set()
        self._turn = asyncio.Lock()
        self._renewer: asyncio.Task | None = None

    async def acquire(self) -> str:
        """Wait (one caller of this batch at a time) until the run has a free slot."""
        async with self._turn:
            while True:
                token = uuid.uuid4().hex
                # held before asking: a cancel mid-call may leave the lease taken in Redis
                self._held.add(token)
                if await self._scripts[0](keys=self._keys, args=self._args(token)):
                    self._start_renewing()
                    return token
                self._held.discard(token)
                await self._redis.blpop([self._keys[1]], timeout=WAIT_S)

    async def release(self, token: str) -> None:
        """Give the slot back and wake one waiter of the run."""
        await self._scripts[1](keys=self._keys, args=self._args(token))
        self._held.discard(token)

    async def close(self) -> None:
        """Stop renewing, give back what is still held and close the connections."""
        if self._renewer is not None:
            self._renewer.cancel()
        try:
            if self._held:
                await self._scripts[1](keys=self._keys, args=self._args(*self._held))
        finally:
            await self._redis.aclose()

    def _args(self, *tokens: str) -> list:
        return [self._limit, self._lease_ms, *tokens]

    def _start_renewing(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = asyncio.ensure_future(self._renew_forever())

    async def _renew_forever(self) -> None:
        # leases outlive the calls they cover however long they take, as long as we are alive
        while self._held:
            await asyncio.sleep(self._lease_ms / 3000)
            if self._held:
                await self._renew(keys=self._keys[:1], args=[self._lease_ms, *self._held])


_LOCAL_LOCK = threading.Lock()
_LOCAL_HELD: dict[str, int] = {}


class LocalRunSlots(RunSlots):
    """The run's count in process memory: batches in threads and event loops of one process
    (the embedded default's one worker) share it."""

    def __init__(self, key: str, limit: int) -> None:
        self._key, self._limit, self._mine = key, limit, 0
        self._turn = asyncio.Lock()

    async def acquire(self) -> str:
        """Wait (one caller of this batch at a time) until the key has a free slot."""
        async with self._turn:
            while not self._take():
                await asyncio.sleep(LOCAL_POLL_S)
        return self._key

    async def release(self, token: str) -> None:
        self._give(1)

    async def close(self) -> None:
        self._give(self._mine)

    def _take(self) -> bool:
        with _LOCAL_LOCK:
            if _LOCAL_HELD.get(self._key, 0) >= self._limit:
                return False
            _LOCAL_HELD[self._key] = _LOCAL_HELD.get(self._key, 0) + 1
            self._mine += 1
            return True

    def _give(self, count: int) -> None:
        with _LOCAL_LOCK:
            held = _LOCAL_HELD.get(self._key, 0) - count
            self._mine -= count
            if held > 0:
                _LOCAL_HELD[self._key] = held
            else:
                _LOCAL_HELD.pop(self._key, None)
