"""Bounded concurrency that also hands each call an HTTP client.

The HTTP connection pool scans every connection it holds on each request and each release, so
one pool of 64 connections spends more CPU per call than eight pools of 8. ``ClientPool``
keeps ``concurrency`` slots spread round-robin over clients of at most ``SHARD_SIZE``
connections; taking a slot picks the client, so no pool ever waits for a connection. With a
``RunLimit`` each call also holds one of its run's slots (``slots.py``), so the run's batches
in every worker together keep at most ``concurrency`` calls in flight.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from .client import ProviderClient, ProviderSettings, make_client
from .slots import RunLimit, run_slots_open

SHARD_SIZE = 8


class ClientPool:
    """``concurrency`` call slots over ``ceil(concurrency / SHARD_SIZE)`` clients."""

    def __init__(
        self, settings: ProviderSettings, concurrency: int, *, run_limit: RunLimit | None = None
    ) -> None:
        slots = max(1, concurrency)
        self._run = run_slots_open(run_limit, slots) if run_limit else None
        count = math.ceil(slots / SHARD_SIZE)
        per_client = math.ceil(slots / count)
        self._clients = [make_client(settings, per_client) for _ in range(count)]
        self._free: asyncio.Queue[ProviderClient] = asyncio.Queue()
        for index in range(slots):
            self._free.put_nowait(self._clients[index % count])

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[ProviderClient]:
        """Wait for a free slot and yield the client it belongs to."""
        client = await self._free.get()
        try:
            token = await self._run.acquire() if self._run else None
            try:
                yield client
            finally:
                if token is not None:
                    await self._run.release(token)
        finally:
            self._free.put_nowait(client)

    async def close(self) -> None:
        """Give back the run's slots still held and close every client's connections."""
        if self._run is not None:
            await self._run.close()
        for client in self._clients:
            await client.close()
