"""What the pairwise statistics share: the outcome words and how intervals go into JSON."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evaluators.pairing import SWAP, TIE, UNKNOWN, A, B, pair_verdict, parse_answer

OUTCOMES = (A, B, TIE, UNKNOWN)
TIES_MODES = ("split", "exclude")

__all__ = [
    "A",
    "B",
    "OUTCOMES",
    "SWAP",
    "TIE",
    "TIES_MODES",
    "UNKNOWN",
    "lists",
    "pair_verdict",
    "parse_answer",
]


def lists(data: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """Tuples of intervals as JSON lists."""
    return data | {key: list(data[key]) if data[key] is not None else None for key in keys}
