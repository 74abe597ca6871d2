"""Retry policy for outbound calls: which failures to retry and how long to wait (no client
library here: each caller classifies its own exceptions into a `Failure`)."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

# Status codes worth retrying: request timeout, conflict, rate limit and server errors.
_RETRY_STATUSES = frozenset({408, 409, 429})
_MAX_MESSAGE = 300


@dataclass(frozen=True)
class Failure:
    """A classified failed attempt."""

    # "rate_limited" | "server" | "timeout" | "connection" | "rejected" | "refused" | "unexpected"
    kind: str
    message: str
    retryable: bool
    retry_after: float | None = None


class ProviderAnswerError(Exception):
    """A 200 answer that is not a chat completion."""


def status_failure(status: int, headers: Mapping[str, str], detail: str) -> Failure:
    """Failure for an HTTP error answer (any client's), with its Retry-After when given."""
    message = f"HTTP {status}: {short(detail)}"
    retry_after = retry_after_seconds(headers)
    if status == 429:
        return Failure("rate_limited", message, True, retry_after)
    if status >= 500 or status in _RETRY_STATUSES:
        return Failure("server", message, True, retry_after)
    return Failure("rejected", message, False)


def retry_after_seconds(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds from a ``retry-after-ms`` or ``Retry-After`` header (seconds or HTTP date)."""
    milliseconds = headers.get("retry-after-ms")
    if milliseconds is not None:
        seconds = _float(milliseconds)
        if seconds is not None:
            return max(0.0, seconds / 1000)
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _float(value)
    if seconds is not None:
        return max(0.0, seconds)
    return _seconds_until(value, time.time() if now is None else now)


def _float(text: str) -> float | None:
    try:
        return float(text.strip())
    except ValueError:
        return None


def _seconds_until(http_date: str, now: float) -> float | None:
    """Seconds until an HTTP date, None if it does not parse."""
    try:
        moment = email.utils.parsedate_to_datetime(http_date)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - now)


def backoff_delay(
    attempt: int, *, base_s: float, cap_s: float, rng: random.Random | None = None
) -> float:
    """Full-jitter exponential backoff: uniform in [0, min(cap, base * 2**(attempt-1))]."""
    ceiling = min(cap_s, base_s * (2 ** max(0, attempt - 1)))
    return (rng or random).uniform(0, ceiling)


def retry_delay(
    failure: Failure, attempt: int, *, base_s: float, cap_s: float, retry_after_cap_s: float
) -> float:
    """The wait before the next attempt: the server's Retry-After (capped) or the backoff."""
    if failure.retry_after is not None:
        # A little jitter on top spreads the workers that were all told the same moment.
        wait = min(failure.retry_after, retry_after_cap_s)
        return wait + random.uniform(0, min(1.0, 0.1 * wait))
    return backoff_delay(attempt, base_s=base_s, cap_s=cap_s)


def short(text: str) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= _MAX_MESSAGE else flat[:_MAX_MESSAGE] + "…"
