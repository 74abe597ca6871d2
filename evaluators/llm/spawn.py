"""Background tasks of a judge batch (slot renewals and watches, rate-limit bookings) whose
failure is not theirs to report: the batch's own calls meet the same broken connection."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any


def spawned(coroutine: Coroutine[Any, Any, Any]) -> asyncio.Task:
    """The coroutine as a task whose exception is retrieved when it ends. Left unretrieved, the
    event loop logs it from the task's finalizer, whenever garbage collection runs: on Python
    3.11, inside an `ast.parse` of a code evaluator's source, that log's traceback (which
    parses source itself) broke the parse with "AST constructor recursion depth mismatch"."""
    task = asyncio.ensure_future(coroutine)
    task.add_done_callback(_retrieved)
    return task


def _retrieved(task: asyncio.Task) -> None:
    if not task.cancelled():
        task.exception()
