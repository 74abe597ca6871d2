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
    return usage_of(
        latencies_ms=np.asarray(latencies_ms, dtype=float).reshape(-1),
        tokens_in=int(sum(tokens_in)),
        tokens_out=int(sum(tokens_out)),
        costs=np.asarray(costs, dtype=float).reshape(-1),  # None becomes NaN
    )


def usage_of(
    *, latencies_ms: np.ndarray, tokens_in: int, tokens_out: int, costs: np.ndarray
) -> dict:
    """`usage_summary` of rows given as arrays (a latency and a cost a row, NaN: no price)
    and token totals counted already."""
    timed = latencies_ms[latencies_ms > 0]  # NaN compares False: no latency
    priced = costs[~np.isnan(costs)]
    return {
        "rows": int(latencies_ms.size),
        "latency_ms": _percentiles(timed),
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        # a running sum in row order (cumsum never regroups), as adding the rows one by one
        "cost": float(np.cumsum(priced)[-1]) if priced.size else None,
        "priced_rows": int(priced.size),
    }


def _percentiles(values: np.ndarray) -> dict:
    if not values.size:
        return {"p50": None, "p95": None, "max": None}
    p50, p95 = np.percentile(values, [50, 95])
    return {"p50": float(p50), "p95": float(p95), "max": float(values.max())}
