"""A judge batch's background task that fails (a slot watcher whose Redis went away) has its
exception retrieved when it ends: nothing is left for the event loop to log from a finalizer at
some later garbage collection, which on Python 3.11 broke an `ast.parse` running at that moment
("AST constructor recursion depth mismatch", seen in CI)."""

import asyncio
import gc
import logging

from evaluators.llm.spawn import spawned


async def _lost_connection() -> None:
    raise ConnectionError("Redis went away")


def _run_and_drop(start) -> None:
    async def batch() -> None:
        start(_lost_connection())
        await asyncio.sleep(0.01)  # the task ends; nobody awaits it

    asyncio.run(batch())
    gc.collect()


def test_a_spawned_tasks_failure_is_retrieved(caplog):
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        _run_and_drop(spawned)
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()]


def test_a_plain_tasks_failure_would_be_logged_later(caplog):
    # the behaviour `spawned` exists for, shown on a plain task
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        _run_and_drop(asyncio.ensure_future)
    assert [r for r in caplog.records if "never retrieved" in r.getMessage()]
