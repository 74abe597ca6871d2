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

PASS, FAIL, UNKNOWN = Verdict.PASS.value, Verdict.FAIL.value, Verdict.UNKNOWN.value
# Each verdict's count in a summary, under garak's names.
COUNT_KEYS = {PASS: "passed", FAIL: "fails", UNKNOWN: "nones"}


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
    if bins < 1:
        raise ValueError("bins must be at least 1")
    codes = _verdict_codes(verdicts)
    values = np.asarray(scores, dtype=float).reshape(-1)  # None becomes NaN
    if values.size != codes.size:
        raise ValueError(f"{values.size} scores but {codes.size} verdicts")
    counts = np.bincount(codes, minlength=3)
    passed, fails, nones = (int(c) for c in counts)
    evaluated = passed + fails
    valid = values[~np.isnan(values)]
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
        tags=_tag_breakdown(codes, tags) if tags is not None else {},
    )


def _verdict_codes(verdicts: Sequence[str]) -> np.ndarray:
    """Map verdict strings to 0 (pass), 1 (fail), 2 (unknown); reject anything else."""
    labels = np.asarray(verdicts, dtype=str).reshape(-1)
    codes = np.full(labels.size, -1, dtype=np.intp)
    for code, name in enumerate((PASS, FAIL, UNKNOWN)):
        codes[labels == name] = code
    if (codes < 0).any():
        bad = labels[codes < 0][0]
        raise ValueError(f"verdict must be one of {VERDICTS}, got {bad!r}")
    return codes


def _tag_breakdown(
    codes: np.ndarray, tags: Sequence[Iterable[str] | None]
) -> dict[str, dict[str, int]]:
    """Per-tag counts (garak's ``intents``), with a row counted once under each of its tags."""
    if len(tags) != codes.size:
        raise ValueError(f"{len(tags)} tag lists but {codes.size} verdicts")
    rows, flat = _flatten_tags(tags)
    if not flat:
        return {}
    names, tag_index = np.unique(np.asarray(flat, dtype=str), return_inverse=True)
    # One bincount over (verdict, tag) cells gives the whole table at once: table[verdict, tag].
    cells = codes[rows] * names.size + tag_index
    table = np.bincount(cells, minlength=3 * names.size).reshape(3, names.size)
    return {
        str(name): _tag_counts(int(table[0, i]), int(table[1, i]), int(table[2, i]))
        for i, name in enumerate(names)
    }


def _flatten_tags(tags: Sequence[Iterable[str] | None]) -> tuple[np.ndarray, list[str]]:
    """Return (row index per pair, tag per pair); duplicate tags within a row count once."""
    rows: list[int] = []
    flat: list[str] = []
    for row, row_tags in enumerate(tags):
        if not row_tags:
            continue
        if isinstance(row_tags, str):  # a bare string is one tag, not a list of characters
            row_tags = (row_tags,)
        unique = dict.fromkeys(row_tags)
        rows.extend([row] * len(unique))
        flat.extend(unique)
    return np.asarray(rows, dtype=np.intp), flat


def _tag_counts(passed: int, fails: int, nones: int) -> dict[str, int]:
    return {"passed": passed, "fails": fails, "total_evaluated": passed + fails, "nones": nones}
