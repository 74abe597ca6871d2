"""The paired statistics of two bindings with the pairing done by PostgreSQL.

One statement joins the two runs' rows by item id and sends each list the statistics need as
one bytea in baseline order (ids by uuid_send, verdict codes by int2send, scores by
float8send), so no million-row result set is turned into Python objects. numpy then runs the
very functions `compare_paired` runs on the same arrays with the same seed, so every number
and every stored id is what `compare_paired` + `packed` give (tests/experiments/
test_compare_sql.py checks them against each other and against hand counts).

Used when each run has one result a row for the binding (one repetition, scored per row);
repetitions (majority verdicts) and per-turn bindings keep the Python pairing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from django.db import connection, transaction
from django.db.models import F

from evalsets.models import EvalSetItem

from ...models import EvaluatorBinding, Experiment, Result
from ...stats.compare import (
    _CODES,
    _UNKNOWN_CODE,
    PASS,
    _mean_scores,
    _Pairs,
    _pass_rates,
    _plain_words,
    mcnemar_exact,
)
from .store import SEGMENTS, counts

# compare_paired's defaults (the stored comparison uses them)
ITERATIONS, CONFIDENCE = 10_000, 0.95
UID = np.dtype("V16")
WORK_MEM = "128MB"  # for the one pairing statement (the server default is 4 MB)


@contextmanager
def pairing_cursor() -> Iterator:
    """A cursor for a statement that pairs two whole runs, in a transaction whose plans take no
    nested loop and sort in memory. Right after a run is written the table's statistics may
    still say it is empty (a new table, or autovacuum has not analysed it yet): the planner then
    nests a loop over both runs, and the pairing a run's completion stores took 50 s for two
    runs of 20,000 rows instead of 0.8 s."""
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET LOCAL enable_nestloop = off")
            cursor.execute(f"SET LOCAL work_mem = '{WORK_MEM}'")
        yield cursor


def database_pairs(baseline: Experiment, base, candidate: Experiment, cand) -> bool:
    """Whether the database can pair these two bindings' rows (one result an item each)."""
    single = baseline.repetitions == 1 and candidate.repetitions == 1
    return connection.vendor == "postgresql" and single and not (base.per_turn or cand.per_turn)


def paired_in_database(
    *,
    baseline: Experiment,
    base: EvaluatorBinding,
    candidate: Experiment,
    cand: EvaluatorBinding,
    seed: int = 0,
) -> tuple[dict, bytes]:
    """(statistics without the id lists, the ids in SEGMENTS order), as `packed` makes them."""
    codes = [PASS, "fail", PASS, "fail"]
    if baseline.evalset_version_id == candidate.evalset_version_id:
        left, left_params = _side(baseline, base, items=False)
        right, right_params = _side(candidate, cand, items=False)
        version = baseline.evalset_version
        sql, params = _same_version_sql(left, right), [version.evalset_id, version.pk]
    else:
        left, left_params = _side(baseline, base)
        right, right_params = _side(candidate, cand)
        sql, params = _pairing_sql(left, right), []
    columns = _copied(sql, [*codes, *left_params, *right_params, *params])
    pairs, only_base, only_cand = _split(columns)
    del columns  # the statistics below hold only the paired rows' fields
    return _stats(pairs, only_base, only_cand, seed)


def _split(columns: dict[str, np.ndarray]) -> tuple[_Pairs, bytes, bytes]:
    """The paired rows' fields, and the ids of either side's rows without a pair. Each kind's
    rows stay in the statement's order; when every row is paired (two full runs of one
    version) the columns are used as they are, with no copy."""
    kind = columns.pop("kind")
    if not kind.any():
        return _Pairs(*columns.values()), b"", b""
    paired = kind == 0
    pairs = _Pairs(*(values[paired] for values in columns.values()))
    uid = columns["uid"]
    return pairs, uid[kind == 1].tobytes(), uid[kind == 2].tobytes()


def _stats(pairs, only_base: bytes, only_cand: bytes, seed: int) -> tuple[dict, bytes]:
    """compare_paired's numbers in the order it draws them, and the segments' ids."""
    masks = _flip_masks(pairs.base_code, pairs.cand_code)
    rng = np.random.default_rng(seed)
    rates = _pass_rates(pairs, ITERATIONS, CONFIDENCE, rng)
    scores = _mean_scores(pairs, ITERATIONS, CONFIDENCE, rng)
    worse, better = (int(np.count_nonzero(masks[name])) for name in SEGMENTS[:2])
    p_value = mcnemar_exact(worse, better)
    data = {
        "n_paired": int(pairs.ids.size),
        "unchanged": int(np.count_nonzero(pairs.base_code == pairs.cand_code)),
        "mcnemar_p": p_value,
        **rates,
        **scores,
        "confidence": CONFIDENCE,
        "plain_words": _plain_words(p_value, rates["pass_rate_delta_ci"], rates["n_decided"]),
    }
    for key in ("pass_rate_delta_ci", "mean_score_delta_ci"):
        data[key] = list(data[key]) if data[key] is not None else None
    changed = masks["regressions"] | masks["improvements"]
    changed |= masks["to_unknown"] | masks["from_unknown"]
    masks["unchanged"] = ~changed
    parts = {name: pairs.ids[masks[name]].tobytes() for name in SEGMENTS[:5]}
    parts |= {"only_in_baseline": only_base, "only_in_candidate": only_cand}
    return _packed(data, parts)


def _flip_masks(b: np.ndarray, c: np.ndarray) -> dict[str, np.ndarray]:
    """The flips as compare_paired sorts them (stats.compare._flips)."""
    b_known, c_known = b != _UNKNOWN_CODE, c != _UNKNOWN_CODE
    return {
        "regressions": (b == _CODES[PASS]) & (c == _CODES["fail"]),
        "improvements": (b == _CODES["fail"]) & (c == _CODES[PASS]),
        "to_unknown": b_known & ~c_known,
        "from_unknown": ~b_known & c_known,
    }


def _packed(data: dict, parts: dict[str, bytes]) -> tuple[dict, bytes]:
    spans, at = {}, 0
    for name in SEGMENTS:
        size = len(parts[name]) // UID.itemsize
        spans[name] = [at, size]
        at += size
    data["spans"] = spans
    data["counts"] = counts(spans)
    return data, b"".join(parts[name] for name in SEGMENTS)


def _side(experiment: Experiment, binding, *, items: bool = True) -> tuple[str, tuple]:
    """One binding's (position, item id, final verdict, final score) as SQL (the corrections
    applied as the Python pairing applies them); without `items`, the item's row id instead
    of its stable id (two runs of one version pair by position, no join to the items)."""
    from . import FINAL_SCORE, FINAL_VERDICT

    rows = Result.objects.filter(experiment=experiment, binding=binding)
    if items:
        version = experiment.evalset_version
        rows = rows.filter(item__evalset_id=version.evalset_id, item__version_id=version.pk)
        rows = rows.annotate(uid=F("item__item_id"))
    else:
        rows = rows.annotate(uid=F("item_id"))
    rows = rows.annotate(v=FINAL_VERDICT, s=FINAL_SCORE).order_by()
    return rows.values("position", "uid", "v", "s").query.sql_with_params()


# COPY's binary rows: a field count, then each field's length and its big-endian bytes
ROW = np.dtype(
    [("fields", ">i2")]
    + [
        part
        for name, kind in (
            ("kind", ">i2"),
            ("uid", "V16"),
            ("ac", ">i2"),
            ("bc", ">i2"),
            ("as", ">f8"),
            ("bs", ">f8"),
        )
        for part in ((f"{name}_size", ">i4"), (name, kind))
    ]
)
HEADER = 19  # PGCOPY signature, flags and header extension length


# the columns `_split` hands on, in `_Pairs` order after the kind, as native compact arrays
COLUMNS = {
    "kind": np.int8,
    "uid": UID,
    "ac": np.int8,
    "bc": np.int8,
    "as": np.float64,
    "bs": np.float64,
}
PIECE_BYTES = 4 << 20  # COPY data turned into columns at a time


def _copied(sql: str, params: list) -> dict[str, np.ndarray]:
    """The statement's rows as columns, read from COPY's binary form (every field has a fixed
    size and none is NULL, so the rows are plain records) piece by piece: at a million rows
    the columns take 35 MB where the records took 64."""
    from psycopg import ClientCursor

    reader = _ColumnReader()
    with pairing_cursor() as cursor:
        raw = cursor.cursor
        # COPY takes no bound parameters: the values are quoted into it by the driver
        query = ClientCursor(raw.connection).mogrify(sql, params)
        with raw.copy(f"COPY ({query}) TO STDOUT (FORMAT binary)") as copy:
            for block in copy:
                reader.feed(block)
    return reader.columns()


class _ColumnReader:
    """COPY binary data in, whole records converted to columns a piece at a time."""

    def __init__(self) -> None:
        self.pending = bytearray()
        self.header = True
        self.parts: dict[str, list[np.ndarray]] = {name: [] for name in COLUMNS}

    def feed(self, block) -> None:
        self.pending += block
        if len(self.pending) >= PIECE_BYTES:
            self._convert()

    def _convert(self) -> None:
        if self.header and len(self.pending) >= HEADER:
            del self.pending[:HEADER]
            self.header = False
        end = 0 if self.header else len(self.pending) // ROW.itemsize * ROW.itemsize
        if end == 0:
            return
        records = np.frombuffer(memoryview(self.pending)[:end], dtype=ROW)
        for name, dtype in COLUMNS.items():
            self.parts[name].append(records[name].astype(dtype))
        del records  # releases the buffer, so that it can shrink
        del self.pending[:end]

    def columns(self) -> dict[str, np.ndarray]:
        self._convert()
        if bytes(self.pending) != b"\xff\xff":  # the trailer: a field count of -1
            raise ValueError("the pairing's COPY ended in the middle of a row")
        columns = {}
        for name, dtype in COLUMNS.items():  # one column's pieces freed as it is joined
            parts = self.parts.pop(name)
            columns[name] = np.concatenate(parts) if parts else np.empty(0, dtype)
        return columns


def _pairing_sql(left: str, right: str) -> str:
    """Paired rows (kind 0, baseline order), then the baseline's rows without a pair (1, its
    order) and the candidate's (2, its order)."""
    return f"""
        SELECT
            (CASE WHEN b.uid IS NULL THEN 1 WHEN a.uid IS NULL THEN 2 ELSE 0 END)::int2 AS kind,
            COALESCE(a.uid, b.uid),
            {_code("a.v")}, {_code("b.v")},
            COALESCE(a.s, 'NaN')::float8, COALESCE(b.s, 'NaN')::float8
        FROM ({left}) a FULL JOIN ({right}) b ON a.uid = b.uid
        ORDER BY kind, COALESCE(a.position, b.position)
    """


def _same_version_sql(left: str, right: str) -> str:
    """As `_pairing_sql`, for two runs of one version: an item has the same position on both
    sides, so the rows pair by position and take the item's id from its row there, every
    input walked in position order (no hash of a million ids)."""
    return f"""
        SELECT
            (CASE WHEN b.uid IS NULL THEN 1 WHEN a.uid IS NULL THEN 2 ELSE 0 END)::int2 AS kind,
            i.item_id,
            {_code("a.v")}, {_code("b.v")},
            COALESCE(a.s, 'NaN')::float8, COALESCE(b.s, 'NaN')::float8
        FROM ({left}) a FULL JOIN ({right}) b ON a.position = b.position
        JOIN {EvalSetItem._meta.db_table} i ON i.id = COALESCE(a.uid, b.uid)
        WHERE i.evalset_id = %s AND i.version_id = %s
        ORDER BY COALESCE(a.position, b.position)
    """


def _code(column: str) -> str:
    # the verdict's code as compare_paired's _codes gives it: pass 0, fail 1, anything else 2
    return f"(CASE WHEN {column} = %s THEN 0 WHEN {column} = %s THEN 1 ELSE 2 END)::int2"
