"""What rows cost: latency percentiles, token totals and money, for an evaluator or a target."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def usage_summary(
    *,
    latencies_ms: Sequence[float],
    tokens_in: Sequence[int],
    tokens_out: Sequence[int],
    costs: Sequence[float | None],
) -> dict:
    """p50 / p95 / max latency (ms, over rows that took time), token totals, and the total cost
    in USD over the rows that have a price (`priced_rows` of `rows`; None when none has)."""
    timed = np.asarray([v for v in latencies_ms if v and v > 0], dtype=float)
    priced = [c for c in costs if c is not None]
    return {
        "rows": len(latencies_ms),
        "latency_ms": _percentiles(timed),
        "tokens_in": int(sum(tokens_in)),
        "tokens_out": int(sum(tokens_out)),
        "cost": float(sum(priced)) if priced else None,
        "priced_rows": len(priced),
    }


def _percentiles(values: np.ndarray) -> dict:
    if not values.size:
        return {"p50": None, "p95": None, "max": None}
    p50, p95 = np.percentile(values, [50, 95])
    return {"p50": float(p50), "p95": float(p95), "max": float(values.max())}
