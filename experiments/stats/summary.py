"""Tri-state counts, score moments, histogram and per-tag breakdown for one evaluator.

Field names follow garak's ``eval`` report entries (``passed``, ``fails``, ``nones``,
``total_evaluated``, ``total_processed``, ``intents``) so exports can reuse them as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.vocabulary import VERDICTS, Verdict

from .tags import tag_breakdown, tag_sets

PASS, FAIL, UNKNOWN = Verdict.PASS.value, Verdict.FAIL.value, Verdict.UNKNOWN.value
# Each verdict's count in a summary, under garak's names.
COUNT_KEYS = {PASS: "passed", FAIL: "fails", UNKNOWN: "nones"}
# The verdict of each code of `verdict_codes`.
VERDICT_OF_CODE = (Verdict.PASS, Verdict.FAIL, Verdict.UNKNOWN)


@dataclass(frozen=True)
class Summary:
    """Counts and score statistics of one evaluator's results.

    Rates are over ``total_evaluated`` (unknowns excluded) and None when nothing was evaluated.
    ``mean``/``std`` (population std, ddof=0) are over the non-null scores, None when there are
    none. ``tags`` maps tag -> {passed, fails, total_evaluated, nones}, sorted by tag.
    """

    passed: int
    fails: int
    nones: int
    total_evaluated: int
    total_processed: int
    pass_rate: float | None
    fail_rate: float | None
    mean: float | None
    std: float | None
    histogram_edges: list[float]
    histogram_counts: list[int]
    tags: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def line(self) -> str:
        """One-line tri-state summary, e.g. ``"96 pass, 3 fail, 1 unknown"``."""
        return f"{self.passed} pass, {self.fails} fail, {self.nones} unknown"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form (plain ints, floats, lists and dicts)."""
        return {
            "passed": self.passed,
            "fails": self.fails,
            "nones": self.nones,
            "total_evaluated": self.total_evaluated,
            "total_processed": self.total_processed,
            "pass_rate": self.pass_rate,
            "fail_rate": self.fail_rate,
            "mean": self.mean,
            "std": self.std,
            "histogram": {"edges": self.histogram_edges, "counts": self.histogram_counts},
            "tags": {tag: dict(counts) for tag, counts in self.tags.items()},
            "line": self.line,
        }


def summarize(
    scores: Sequence[float | None],
    verdicts: Sequence[str],
    tags: Sequence[Iterable[str] | None] | None = None,
    *,
    bins: int = 10,
) -> Summary:
    """Summarise one evaluator's rows: tri-state counts, rates, moments, histogram, tags.

    ``scores``, ``verdicts`` and ``tags`` are aligned per row. A verdict is "pass", "fail" or
    "unknown"; a score may be None/NaN; a row's tags is an iterable of strings (or None) and a
    row may carry several tags. Vectorised with numpy for 100,000+ rows.
    """
    codes = verdict_codes(verdicts)
    values = np.asarray(scores, dtype=float).reshape(-1)  # None becomes NaN
    if values.size != codes.size:
        raise ValueError(f"{values.size} scores but {codes.size} verdicts")
    breakdown = {}
    if tags is not None:
        if len(tags) != codes.size:
            raise ValueError(f"{len(tags)} tag lists but {codes.size} verdicts")
        set_index, sets = tag_sets(tags)
        breakdown = tag_breakdown(set_index, sets, codes, np.ones(codes.size, dtype=np.int64))
    counts = np.bincount(codes, minlength=3)
    return summary_of(counts=counts, scores=values, tags=breakdown, bins=bins)


def summary_of(
    *, counts: Sequence[int], scores: np.ndarray, tags: dict[str, dict[str, int]], bins: int = 10
) -> Summary:
    """The summary of rows already counted: `counts` per verdict (pass, fail, unknown), every
    row's score in row order (NaN: none) and the per-tag counts (`tag_breakdown`)."""
    if bins < 1:
        raise ValueError("bins must be at least 1")
    passed, fails, nones = (int(c) for c in counts)
    evaluated = passed + fails
    valid = scores[~np.isnan(scores)]
    hist_counts, edges = np.histogram(valid, bins=bins, range=(0.0, 1.0))
    return Summary(
        passed=passed,
        fails=fails,
        nones=nones,
        total_evaluated=evaluated,
        total_processed=evaluated + nones,
        pass_rate=passed / evaluated if evaluated else None,
        fail_rate=fails / evaluated if evaluated else None,
        mean=float(valid.mean()) if valid.size else None,
        std=float(valid.std()) if valid.size else None,
        histogram_edges=[float(e) for e in edges],
        histogram_counts=[int(c) for c in hist_counts],
        tags=tags,
    )


def verdict_codes(verdicts: Sequence[str] | np.ndarray) -> np.ndarray:
    """Verdicts as codes 0 (pass), 1 (fail), 2 (unknown); an integer array is taken as codes
    already. Anything else is refused."""
    if isinstance(verdicts, np.ndarray) and verdicts.dtype.kind in "iu":
        return verdicts.astype(np.intp, copy=False)
    labels = np.asarray(verdicts, dtype=str).reshape(-1)
    codes = np.full(labels.size, -1, dtype=np.intp)
    for code, name in enumerate((PASS, FAIL, UNKNOWN)):
        codes[labels == name] = code
    if (codes < 0).any():
        bad = labels[codes < 0][0]
        raise ValueError(f"verdict must be one of {VERDICTS}, got {bad!r}")
    return codes
