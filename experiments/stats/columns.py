"""One evaluator's rows as compact columns: what the aggregates are computed from, and how rows
become columns without a Python object a row.

A million results are a few numpy arrays (float64 scores, latencies and costs, int8 verdict
codes, int32 item indices: about 30 MB) instead of lists of dicts (hundreds of MB). Rows are
read a chunk at a time (`columns_of`), so no list of every row ever exists.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

READ_CHUNK = 20_000


@dataclass
class RowColumns:
    """One evaluator's rows (results, or per-turn rows), human corrections applied: what could
    be counted as counts, what needs a value a row as arrays in row order."""

    counts: np.ndarray  # rows per verdict code: pass, fail, unknown
    statuses: dict[str, int]  # rows per status, in first-seen order
    tags: dict[str, dict[str, int]]  # per-tag counts, as `Summary.tags`
    tokens_in: int
    tokens_out: int
    corrected: int  # results a human corrected
    scores: np.ndarray  # float64 a row; NaN: no score
    latencies: np.ndarray  # float64 a row (ms)
    costs: np.ndarray  # float64 a row; NaN: no price
    # with repetitions (intervals clustered by item), else None:
    items: np.ndarray | None = None  # each row's item, as its first-seen index
    codes: np.ndarray | None = None  # each row's verdict code (int8)
    tag_cells: dict[str, tuple[np.ndarray, np.ndarray]] | None = None  # tag: fails, decided


class KeyCodes:
    """A column of few distinct values (statuses, tag lists as text) read as int32 codes;
    `keys` are the values, in no particular order (callers order by rows, not by codes)."""

    def __init__(self) -> None:
        self.index: dict[Hashable, int] = {}

    def encode(self, column: Sequence[Hashable]) -> np.ndarray:
        """The codes of one chunk of the column."""
        index = self.index
        for value in set(column).difference(index):
            index[value] = len(index)
        # a C-level map over the chunk: no Python frame a row
        return np.fromiter(map(index.__getitem__, column), dtype=np.int32, count=len(column))

    @property
    def keys(self) -> list:
        return list(self.index)


def chunked(rows: Iterable[Sequence], size: int = READ_CHUNK) -> Iterator[list[Sequence]]:
    """An iterable of rows as lists of at most `size` rows (for `columns_of`)."""
    rows = iter(rows)
    while block := list(itertools.islice(rows, size)):
        yield block


def columns_of(chunks: Iterable[Sequence[Sequence]], kinds: Sequence) -> list[np.ndarray]:
    """Rows (tuples), given a chunk at a time, as one array per column: `kinds` gives each
    column's numpy dtype (None becomes NaN in a float column) or a `KeyCodes`."""
    parts: list[list[np.ndarray]] = [[] for _ in kinds]
    for block in chunks:
        for part, column in zip(parts, _block_columns(block, kinds), strict=True):
            part.append(column)
    # joined a column at a time, each one's chunks let go at once: the peak is the columns
    # plus one column, not twice the columns
    return [_joined(parts, i, kind) for i, kind in enumerate(kinds)]


def _block_columns(block: Sequence[Sequence], kinds: Sequence) -> list[np.ndarray]:
    """One chunk's columns. The numbers go through one 2-D float64 array, a single C loop over
    the chunk (four times faster than a column at a time; ids, keys and counts are exact below
    2^53); a `KeyCodes` column is taken out of the rows and coded by value."""
    numeric = [i for i, kind in enumerate(kinds) if not isinstance(kind, KeyCodes)]
    columns: list = [None] * len(kinds)
    if numeric:
        values = block if len(numeric) == len(kinds) else list(map(itemgetter(*numeric), block))
        grid = np.array(values, dtype=np.float64).reshape(len(block), len(numeric))
        for position, i in enumerate(numeric):
            columns[i] = grid[:, position].astype(kinds[i])
    for i, kind in enumerate(kinds):
        if isinstance(kind, KeyCodes):
            columns[i] = kind.encode(list(map(itemgetter(i), block)))
    return columns


def _joined(parts: list[list[np.ndarray]], i: int, kind) -> np.ndarray:
    part, parts[i] = parts[i], []
    if part:
        return np.concatenate(part)
    return np.zeros(0, dtype=np.int32 if isinstance(kind, KeyCodes) else kind)


def codes_among(values: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Each value's index in `keys` (distinct), `len(keys)` for a value that is not one."""
    if not keys.size:
        return np.zeros(values.size, dtype=np.int32)
    order = np.argsort(keys)
    found = np.searchsorted(keys[order], values).clip(0, keys.size - 1)
    hit = keys[order][found] == values
    return np.where(hit, order[found], keys.size).astype(np.int32)


def first_seen_index(keys: Sequence[Hashable] | np.ndarray) -> tuple[np.ndarray, list | np.ndarray]:
    """Each key's index among the distinct keys in first-seen order, and those keys: integer
    arrays by sorting (no Python object a row), anything else through a dict."""
    if isinstance(keys, np.ndarray) and keys.dtype.kind in "iu":
        return _first_seen_of_integers(keys)
    index: dict[Hashable, int] = {}
    codes = [index.setdefault(key, len(index)) for key in keys]
    return np.asarray(codes, dtype=np.intp), list(index)


def _first_seen_of_integers(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    distinct, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return rank[inverse.reshape(-1)], distinct[order]
