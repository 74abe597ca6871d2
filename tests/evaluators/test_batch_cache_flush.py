"""A batch's cache answers are all in the shared store when the batch ends, even when the last
periodic write is still in its thread then (a slow Redis): a run that ended before its last
answers landed made a quick re-run pay for them again (seen in a clean-clone run: 12 calls
where the cache should have answered all 10)."""

from __future__ import annotations

import asyncio
import threading
import time

from evaluators.llm.client import CACHE_FLUSH_S, batch_cache


class SlowStore:
    """A shared store whose writes take a while, counted as they land."""

    def __init__(self, write_s: float) -> None:
        self.write_s = write_s
        self.data: dict = {}
        self.lock = threading.Lock()

    def get_many(self, keys):
        return {}

    def set_many(self, values):
        time.sleep(self.write_s)
        with self.lock:
            self.data.update(values)


def test_every_answer_is_stored_when_the_batch_ends_with_a_write_in_flight():
    store = SlowStore(write_s=0.5)

    async def batch():
        async with batch_cache(store, ["a", "b"]) as view:
            view.set("a", {"raw_answer": "1"})
            await asyncio.sleep(CACHE_FLUSH_S * 1.5)  # the periodic write of "a" is in its thread
            view.set("b", {"raw_answer": "2"})
        return dict(store.data)  # what a run finishing now would leave behind

    assert asyncio.run(batch()) == {"a": {"raw_answer": "1"}, "b": {"raw_answer": "2"}}


def test_the_answers_the_last_periodic_write_took_are_stored_when_the_batch_ends():
    store = SlowStore(write_s=0.5)

    async def batch():
        async with batch_cache(store, ["a"]) as view:
            view.set("a", {"raw_answer": "1"})
            await asyncio.sleep(CACHE_FLUSH_S * 1.5)  # taken by the periodic write, in flight
        return dict(store.data)  # nothing is pending now: only that write holds "a"

    assert asyncio.run(batch()) == {"a": {"raw_answer": "1"}}
