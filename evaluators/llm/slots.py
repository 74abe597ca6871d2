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

A batch takes slots from Redis for all of its waiting calls in one script call, hands a slot
a call gives back straight to its next waiting call (no round trip while it has work), and
gives back in one call the slots freed in one turn of its event loop; only one task of a batch
waits on Redis at a time. A chunk of 20,000 turns therefore asks Redis a few times per wave of
freed slots, not twice per call.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .spawn import spawned

LEASE_S = 30.0
WAIT_S = 0.05  # the longest blocking wait for a notification before trying again
# A batch that waits for a slot is seen by the run's other batches for this long (it renews
# its entry each time it tries again); a batch holding slots looks every WATCH_S how many
# others wait, and while it holds more than its share gives its freed slots back to the run.
WAITING_MS = 250
WATCH_S = 0.025
LOCAL_POLL_S = 0.002
_PREFIX = "assay:slots:"

# KEYS: leases, notifications, waiting batches. ARGV: limit, lease (ms), batch id, tokens...
# Takes the first tokens, as many as the run has free, and returns how many (0: all held);
# a batch that got fewer than it asked for is registered as waiting (for WAITING_MS), one
# that got all of them no longer is.
_ACQUIRE_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local free = tonumber(ARGV[1]) - redis.call('ZCARD', KEYS[1])
local taken = 0
for i = 4, #ARGV do
  if taken >= free then break end
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[i])
  taken = taken + 1
end
if taken > 0 then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2])) end
if taken < #ARGV - 3 then
  redis.call('ZADD', KEYS[3], now + WAITING_MS, ARGV[3])
  redis.call('PEXPIRE', KEYS[3], WAITING_MS)
else
  redis.call('ZREM', KEYS[3], ARGV[3])
end
return taken
""".replace("WAITING_MS", str(WAITING_MS))

# KEYS: waiting batches. ARGV: this batch's id. How many other batches of the run wait.
_OTHERS_WAITING_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1]) and 1 or 0
return redis.call('ZCARD', KEYS[1]) - mine
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
    """The run's slots for this event loop: in Redis when it has a URL, else in process
    (counted when this process watches the key: `slots_watched`)."""
    limit = max(1, limit)
    if run_limit.redis_url:
        slots: RunSlots = RedisRunSlots(run_limit, limit)
    else:
        slots = LocalRunSlots(run_limit.key, limit)
    watch = _WATCHED.get(run_limit.key)
    return _Counted(slots, watch) if watch is not None else slots


class SlotWatch:
    """This process's calls of one run key: in flight now and finished so far. Written on the
    event loop's thread, read by another (the engine's progress report): plain ints."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.finished = 0
        self.users = 0


# key → its watch, while some code of this process watches it (a run's progress)
_WATCHED: dict[str, SlotWatch] = {}
_WATCH_LOCK = threading.Lock()


@contextmanager
def slots_watched(key: str) -> Iterator[SlotWatch]:
    """Count the calls of `key` in this process while the block runs (a slot held is a call
    in flight; a slot given back, a call finished). Unwatched keys cost nothing."""
    with _WATCH_LOCK:
        watch = _WATCHED.setdefault(key, SlotWatch())
        watch.users += 1
    try:
        yield watch
    finally:
        with _WATCH_LOCK:
            watch.users -= 1
            if not watch.users:
                _WATCHED.pop(key, None)


class _Counted(RunSlots):
    """A run's slots that count their calls into a watch."""

    def __init__(self, slots: RunSlots, watch: SlotWatch) -> None:
        self._slots, self._watch = slots, watch

    async def acquire(self) -> str:
        token = await self._slots.acquire()
        self._watch.in_flight += 1
        return token

    async def release(self, token: str) -> None:
        self._watch.in_flight -= 1
        self._watch.finished += 1
        await self._slots.release(token)

    async def close(self) -> None:
        await self._slots.close()


class RedisRunSlots(RunSlots):
    """Leases in a Redis sorted set shared by every worker of the run.

    A slot given back while another call of this batch waits goes to that call at once (the
    lease stays taken: no round trip) unless other batches of the run wait and this one holds
    more than its share (the run's slots split evenly among the batches that want them);
    slots are taken from Redis for every call waiting at the time in one script call, and
    those freed in one turn of the event loop go back in one. A batch whose calls run out
    gives its slots back for the run's other batches (another worker's chunk) to take within
    a round trip."""

    def __init__(self, run_limit: RunLimit, limit: int) -> None:
        import redis.asyncio

        self._redis = redis.asyncio.Redis.from_url(run_limit.redis_url)
        base = _PREFIX + run_limit.key
        self._keys = [base, base + ":free", base + ":waiting"]
        self._id = uuid.uuid4().hex
        self._limit, self._lease_ms = limit, round(run_limit.lease_s * 1000)
        self._scripts = [self._redis.register_script(s) for s in (_ACQUIRE_LUA, _RELEASE_LUA)]
        self._renew = self._redis.register_script(_RENEW_LUA)
        self._waiting = self._redis.register_script(_OTHERS_WAITING_LUA)
        self._others = 0  # how many other batches of the run wait for a slot
        self._held: set[str] = set()  # every lease this batch holds in Redis
        self._asking: set[str] = set()  # the tokens of a take under way
        self._waiters: deque[asyncio.Future] = deque()
        self._freed: list[str] = []  # given back by a call, not yet to Redis
        self._taker: asyncio.Task | None = None
        self._giver: asyncio.Task | None = None
        self._renewer: asyncio.Task | None = None
        self._watcher: asyncio.Task | None = None
        # set by close(): the loops below end by it too, because a cancel that lands inside a
        # Redis call can be lost there (seen: the watcher looping on after the batch, and the
        # event loop's shutdown waiting for it for ever)
        self._closing = False

    async def acquire(self) -> str:
        """Wait until this call has a slot of the run; return its token."""
        if self._freed and not self._over_share():  # freed in this turn: still ours in Redis
            return self._freed.pop()
        waiter = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        if self._taker is None or self._taker.done():
            self._taker = spawned(self._take())
        return await waiter

    async def release(self, token: str) -> None:
        """Hand the slot to the next waiting call (unless other batches of the run wait and
        this one holds more than its share), else give it back to the run."""
        if self._over_share() or not self._hand(token):
            self._freed.append(token)
            if self._giver is None or self._giver.done():
                self._giver = spawned(self._give_back())

    async def close(self) -> None:
        """Stop renewing, give back what is still held and close the connections."""
        self._closing = True
        for task in (self._renewer, self._watcher, self._taker, self._giver):
            if task is not None:
                task.cancel()
        try:
            if self._held or self._asking:
                tokens = self._held | self._asking
                await self._scripts[1](keys=self._keys[:2], args=self._args(*tokens))
        finally:
            self._held.clear()
            await self._redis.aclose()

    def _over_share(self) -> bool:
        """Does this batch hold more than its share while others wait (the run's slots split
        evenly among the batches that want them)?"""
        return bool(self._others) and len(self._held) > -(-self._limit // (self._others + 1))

    def _hand(self, token: str) -> bool:
        """Give `token` to the first call still waiting; False when none waits."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():  # a cancelled call's waiter is done
                waiter.set_result(token)
                return True
        return False

    async def _take(self) -> None:
        """Take slots from Redis for the waiting calls (all at once) until none waits; when
        the run has none free, wait for a notification that one was freed."""
        while not self._closing:
            self._settle_freed()
            wanted = sum(1 for waiter in self._waiters if not waiter.done())
            if not wanted:
                break
            tokens = [uuid.uuid4().hex for _ in range(wanted)]
            # remembered before asking: a cancel mid-call may leave the leases taken in Redis
            self._asking = set(tokens)
            args = [self._limit, self._lease_ms, self._id, *tokens]
            taken = int(await self._scripts[0](keys=self._keys, args=args))
            self._held.update(tokens[:taken])
            self._asking = set()
            if not taken:
                await self._redis.blpop([self._keys[1]], timeout=WAIT_S)
                continue
            self._start_renewing()
            for token in tokens[:taken]:
                if not self._hand(token):  # its call went away meanwhile
                    await self.release(token)
        self._waiters.clear()

    async def _give_back(self) -> None:
        await asyncio.sleep(0)  # the calls ending in this turn of the loop free theirs too
        while tokens := self._freed:
            self._freed = []
            await self._scripts[1](keys=self._keys[:2], args=self._args(*tokens))
            self._held.difference_update(tokens)
            # freed meanwhile: past its share they go back too, else the batch's waiting calls
            # take them now or its next call without a round trip (still held in Redis)
            self._reuse_freed()
            if not self._over_share():
                return

    def _reuse_freed(self) -> None:
        """Hand slots freed but still held in Redis to this batch's waiting calls, while it
        holds no more than its share."""
        while self._freed and not self._over_share() and self._hand(self._freed[-1]):
            self._freed.pop()

    def _settle_freed(self) -> None:
        """Before asking Redis: freed slots this batch still holds go to its waiting calls or,
        past its share, back to the run — never held idle while both batches wait for them
        (they kept leased slots unused for a whole chunk: 16-30 s runs of a 7 s pipeline)."""
        self._reuse_freed()
        if self._freed and (self._giver is None or self._giver.done()):
            self._giver = spawned(self._give_back())

    async def _watch(self) -> None:
        """While this batch holds slots: does another batch of the run wait for one?"""
        while self._held and not self._closing:
            self._others = int(await self._waiting(keys=self._keys[2:], args=[self._id]))
            await asyncio.sleep(WATCH_S)
        self._others = 0

    def _args(self, *tokens: str) -> list:
        return [self._limit, self._lease_ms, *tokens]

    def _start_renewing(self) -> None:
        if self._renewer is None or self._renewer.done():
            self._renewer = spawned(self._renew_forever())
        if self._watcher is None or self._watcher.done():
            self._watcher = spawned(self._watch())

    async def _renew_forever(self) -> None:
        # leases outlive the calls they cover however long they take, as long as we are alive
        while self._held and not self._closing:
            await asyncio.sleep(self._lease_ms / 3000)
            if self._held and not self._closing:
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
