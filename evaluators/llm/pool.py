"""Bounded concurrency that also hands each call an HTTP client.

The HTTP connection pool scans every connection it holds on each request and each release, so
one pool of 64 connections spends more CPU per call than eight pools of 8. ``ClientPool``
keeps ``concurrency`` slots spread round-robin over clients of at most ``SHARD_SIZE``
connections; taking a slot picks the client, so no pool ever waits for a connection.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import openai

from .client import ProviderSettings, make_client

SHARD_SIZE = 8


class ClientPool:
    """``concurrency`` call slots over ``ceil(concurrency / SHARD_SIZE)`` clients."""

    def __init__(self, settings: ProviderSettings, concurrency: int) -> None:
        slots = max(1, concurrency)
        count = math.ceil(slots / SHARD_SIZE)
        per_client = math.ceil(slots / count)
        self._clients = [make_client(settings, per_client) for _ in range(count)]
        self._free: asyncio.Queue[openai.AsyncOpenAI] = asyncio.Queue()
        for index in range(slots):
            self._free.put_nowait(self._clients[index % count])

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[openai.AsyncOpenAI]:
        """Wait for a free slot and yield the client it belongs to."""
        client = await self._free.get()
        try:
            yield client
        finally:
            self._free.put_nowait(client)

    async def close(self) -> None:
        """Close every client's connections."""
        for client in self._clients:
            await client.close()
