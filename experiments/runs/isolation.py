"""One run's fault stays that run's: a periodic pass (the reaper's revive, resend, restart and
finish steps, its dispatch, for every kind of run) does each run's step on its own, so a run whose
stored rows make a step raise is logged and failed, and every other workspace's runs are still
revived, sent and finished in the same pass. Before, one run whose numbers could not be summed
(a pushed cost of 1e308 totalled Infinity, which PostgreSQL's jsonb refuses) made the whole
pass raise on every beat, and a dead worker's chunk of another workspace stayed stuck."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from assay.safety.caps import MESSAGE_BYTES, cap_text

from . import lifecycle

log = logging.getLogger(__name__)

# A lost connection, a deadlock or a lock/statement timeout says nothing about the run's rows;
# failing a healthy run for it would be permanent.
TRANSIENT = (OperationalError, InterfaceError)
FAULT_MESSAGE = (
    "The run could not be finished: {error}. It was marked failed so that other runs go on; "
    "its finished rows are kept."
)


def run_isolated(kind, run_id: int, step: Callable[..., Any], /, *args, **kwargs) -> Any:
    """`step(*args, **kwargs)` for one run of `kind` in its own savepoint; when it raises,
    the exception is logged with the run and the run is failed (without settling its
    numbers: that may be what raised). Returns the step's value, or None after a fault."""
    try:
        with transaction.atomic():
            return step(*args, **kwargs)
    except TRANSIENT:
        raise  # the database's fault, not the run's: the next pass tries the run again
    except Exception as exc:  # noqa: BLE001 - any fault of one run; the pass goes on
        log.exception("periodic pass: %s %s raised in %s", kind.noun, run_id, step.__name__)
        run_fail_unsettled(kind=kind, run_id=run_id, error=f"{type(exc).__name__}: {exc}")
        return None


def run_fail_unsettled(*, kind, run_id: int, error: str) -> bool:
    """→ failed with `error` in its message, from queued or running (a finished run keeps its
    status); its counters and statistics are left as they were."""
    message = cap_text(FAULT_MESSAGE.format(error=cap_text(error, 1000)), MESSAGE_BYTES)
    return lifecycle.move(kind, run_id, "fail", finished_at=timezone.now(), error_message=message)


def pass_isolated(what: str, step: Callable[[], list]) -> list:
    """A step of a pass that belongs to no one run (dispatch): logged and skipped for this
    pass when it raises, so what the pass already collected is still sent."""
    try:
        return step()
    except Exception:  # noqa: BLE001 - the next pass tries again
        log.exception("periodic pass: %s raised; the next pass tries again", what)
        return []
