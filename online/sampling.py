"""Cohort sampling: whether a trace is in a rule's sample depends on its trace id and the rate
alone, so every rule at the same rate scores the same traces, a trace is wholly in or out (all
its spans), and a rule at 10 % scores a subset of what a rule at 20 % scores. A session rule's
cohort is drawn the same way from the session id, so every session rule at one rate scores the
same sessions (each of a session's traces still decides for itself in a span or trace rule)."""

from __future__ import annotations

import hashlib

SCALE = float(1 << 64)


def cohort_position(trace_id: str) -> float:
    """The trace's place in [0, 1): the first 8 bytes of SHA-256 of its lower-case hex id.
    (OpenTelemetry's own trace ids are random, but a client may choose them: hashing keeps a
    chosen id from choosing its sample.)"""
    return _position(trace_id.strip().lower())


def session_position(session_id: str) -> float:
    """The session's place in [0, 1): as a trace's, from its id as sent (session ids are any
    text a client chooses, case and all)."""
    return _position(session_id)


def _position(key: str) -> float:
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / SCALE


def in_sample(trace_id: str, rate: float, *, session_id: str = "") -> bool:
    """True when the item is in a sample of `rate` (0..1): by its session when it is one (a
    session rule's item), else by its trace."""
    position = session_position(session_id) if session_id else cohort_position(trace_id)
    return position < rate
