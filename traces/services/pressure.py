"""Pressure on the OTLP endpoint: a per-workspace rate in spans per second.

The `limits` library's sliding-window counter, in Redis when there is one (every web process
shares the count) and in the process without Redis (the embedded default runs one web
process). The window holds ASSAY_OTLP_SPANS_BURST spans over burst / rate seconds, so a
workspace may send a burst at once and the rate on average.
"""

from __future__ import annotations

import functools
import logging
import math
import time

from django.conf import settings
from limits import RateLimitItemPerSecond
from limits.errors import StorageError
from limits.storage import storage_from_string
from limits.strategies import SlidingWindowCounterRateLimiter

from assay.models import Workspace

logger = logging.getLogger(__name__)


class IngestBusy(Exception):
    """The workspace sends faster than it may, or has too many batches waiting: the sender
    should retry after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def span_rate_take(*, workspace: Workspace, spans: int) -> None:
    """Count `spans` against the workspace's rate; IngestBusy (nothing counted) when they do
    not fit. A Redis that does not answer lets the spans in: the waiting-batch cap still
    bounds the queue, and refusing would lose spans an exporter gives up on."""
    rate = settings.ASSAY_OTLP_SPANS_PER_SECOND
    if rate <= 0 or spans <= 0:
        return
    burst = max(settings.ASSAY_OTLP_SPANS_BURST, rate, settings.ASSAY_OTLP_MAX_SPANS)
    window = RateLimitItemPerSecond(burst, max(1, round(burst / rate)))
    limiter = _limiter(settings.REDIS_URL or "memory://")
    key = str(workspace.public_id)
    try:
        if limiter.hit(window, "otlp-spans", key, cost=spans):
            return
        reset_at = limiter.get_window_stats(window, "otlp-spans", key).reset_time
    except StorageError as exc:
        logger.warning("span rate not counted (Redis did not answer): %s", exc)
        return
    # said to an exporter, in the protocol's English (not a page: not translated)
    raise IngestBusy(
        f"over {rate:,} spans a second for this workspace; retry later",
        retry_after=max(1, math.ceil(reset_at - time.time())),
    )


@functools.lru_cache(maxsize=4)
def _limiter(url: str) -> SlidingWindowCounterRateLimiter:
    options = {"wrap_exceptions": True} if url.startswith(("redis:", "rediss:")) else {}
    return SlidingWindowCounterRateLimiter(storage_from_string(url, **options))
