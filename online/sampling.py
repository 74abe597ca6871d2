"""Cohort sampling: whether a trace is in a rule's sample depends on its trace id and the rate
alone, so every rule at the same rate scores the same traces, a trace is wholly in or out (all
its spans, its session's other traces decide for themselves), and a rule at 10 % scores a subset
of what a rule at 20 % scores."""

from __future__ import annotations

import hashlib

SCALE = float(1 << 64)


def cohort_position(trace_id: str) -> float:
    """The trace's place in [0, 1): the first 8 bytes of SHA-256 of its lower-case hex id.
    (OpenTelemetry's own trace ids are random, but a client may choose them: hashing keeps a
    chosen id from choosing its sample.)"""
    digest = hashlib.sha256(trace_id.strip().lower().encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big") / SCALE


def in_sample(trace_id: str, rate: float) -> bool:
    """True when the trace is in a sample of `rate` (0..1)."""
    return cohort_position(trace_id) < rate
