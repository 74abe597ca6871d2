"""The pairing done by PostgreSQL (experiments/results/compare/sql.py) gives the numbers and
ids `compare_paired` gives from the rows read into Python, bit for bit: with unknown
verdicts, missing scores, corrections, rows on one side only and runs of two versions. On
every database the stored comparison matches counts made by hand."""

import numpy as np
import pytest
from django.db import connection

from experiments.models import Result
from experiments.results.aggregates import aggregates_refresh
from experiments.results.compare import bindings_by_evaluator, evaluator_side
from experiments.results.compare import sql as compare_sql
from experiments.results.compare.sql import (
    _same_version_sql,
    _side,
    database_pairs,
    paired_in_database,
    pairing_cursor,
)
from experiments.results.compare.store import SEGMENTS, packed, pair_stats
from experiments.results.trends import FAIL, PASS, _flips_sql, paired_flips
from experiments.stats import compare_paired
from tests.support.factories import make_code_version, make_evalset_version, qa_rows, run_inline

pytestmark = pytest.mark.django_db
postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the database pairing is PostgreSQL's"
)


@pytest.fixture
def runs(workspace, user):
    """Two runs of one check on 40 rows, the candidate's rows changed by hand (below)."""
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40))
    check = make_code_version(workspace=workspace, user=user)
    base = run_inline(workspace=workspace, user=user, version=version, evaluator_version=check)
    cand = run_inline(workspace=workspace, user=user, version=version, evaluator_version=check)
    mixed(base, cand)
    return base, cand


def mixed(base, cand) -> None:
    """Rows 0–3 pass→fail, 4–5 fail→pass, 6 → unknown, 7 unknown →, 8 a corrected
    regression (a human says pass), 9–10 no score, 38 only in the baseline, 39 only in the
    candidate; every row's score its position / 40 on the candidate."""
    rows = Result.objects.filter
    rows(experiment=base).update(verdict="pass", score=0.5)
    rows(experiment=base, position__in=[4, 5]).update(verdict="fail")
    rows(experiment=base, position=7).update(verdict="unknown")
    rows(experiment=cand).update(verdict="pass")
    for result in rows(experiment=cand):
        rows(pk=result.pk).update(score=result.position / 40)
    rows(experiment=cand, position__in=[0, 1, 2, 3, 8]).update(verdict="fail")
    rows(experiment=cand, position=6).update(verdict="error")
    rows(experiment=cand, position=8).update(human_verdict="pass", human_score=0.9)
    rows(experiment=cand, position__in=[9, 10]).update(score=None)
    rows(experiment=cand, position=38).delete()
    rows(experiment=base, position=39).delete()
    for run in (base, cand):
        aggregates_refresh(experiment=run)


def sides(base, cand):
    [b] = bindings_by_evaluator(base).values()
    [c] = bindings_by_evaluator(cand).values()
    return b, c


def in_python(base, b, cand, c, seed=0):
    left, right = evaluator_side(base, b), evaluator_side(cand, c)
    return packed(compare_paired(left, right, seed=seed).to_dict(), left, right)


@postgres_only
@pytest.mark.parametrize("seed", [0, 7])
def test_the_database_pairing_is_the_python_pairing(runs, seed):
    base, cand = runs
    b, c = sides(base, cand)
    assert database_pairs(base, b, cand, c)
    found = paired_in_database(baseline=base, base=b, candidate=cand, cand=c, seed=seed)
    assert found == in_python(base, b, cand, c, seed)


@postgres_only
def test_two_versions_pair_by_item_id_as_in_python(runs, workspace, user):
    base, cand = runs
    # a second run on the candidate's rows moved to other positions of another version
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(40), name="v2")
    other = run_inline(
        workspace=workspace,
        user=user,
        version=version,
        evaluator_version=sides(base, cand)[0].evaluator_version,
    )
    b, c = sides(base, other)
    found = paired_in_database(baseline=base, base=b, candidate=other, cand=c)
    assert found == in_python(base, b, other, c)
    assert found[0]["n_paired"] == 0  # another version's rows are other items


def test_the_stored_figures_are_the_hand_counts(runs):
    base, cand = runs
    b, c = sides(base, cand)
    pair = pair_stats(baseline=base, base=b, candidate=cand, cand=c)
    stats = pair.stats
    assert stats["n_paired"] == 38
    assert stats["counts"] == {
        "regressions": 4,
        "improvements": 2,
        "to_unknown": 1,
        "from_unknown": 1,
        "only_in_baseline": 1,
        "only_in_candidate": 1,
        "unknown_flips": 2,
    }
    assert stats["unchanged"] == 38 - 8
    assert stats["n_decided"] == 36
    assert stats["pass_rate_baseline"] == 34 / 36 and stats["pass_rate_candidate"] == 32 / 36
    # scored pairs: every paired row but 9 and 10; the corrected row 8 scores 0.9
    scored = [p for p in range(38) if p not in (9, 10)]
    cand_scores = [0.9 if p == 8 else p / 40 for p in scored]
    assert stats["n_scored"] == 36
    assert stats["mean_score_baseline"] == pytest.approx(0.5)
    assert stats["mean_score_candidate"] == pytest.approx(sum(cand_scores) / 36)
    spans = stats["spans"]
    assert [spans[name][1] for name in SEGMENTS] == [4, 2, 1, 1, 30, 1, 1]
    regressions = [uid for uid, _kind in pair.slice(*spans["regressions"])]
    by_position = dict(
        Result.objects.filter(experiment=base).values_list("position", "item__item_id")
    )
    assert regressions == [str(by_position[p]) for p in (0, 1, 2, 3)]


def test_the_trends_flips_of_one_version_pair_by_row_as_by_item_id(runs):
    base, cand = runs
    b, c = sides(base, cand)
    assert paired_flips(earlier=b.pk, later=c.pk) == (4, 2, 38)  # by hand, as above
    counted = []
    for one_version in (True, False):
        with connection.cursor() as cursor:
            params = [PASS, FAIL, FAIL, PASS, base.pk, b.pk, cand.pk, c.pk]
            cursor.execute(_flips_sql(one_version), params)
            counted.append(tuple(int(n) for n in cursor.fetchone()))
    assert counted == [(4, 2, 38), (4, 2, 38)]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's planner")
def test_pairing_takes_no_nested_loop_while_the_statistics_say_the_table_is_empty(runs):
    # A run's completion pairs it at once, before autovacuum has analysed its rows: with
    # statistics of an empty table the planner nests a loop over both runs (50 s at 20,000
    # rows a run). pg_class is written in the test's transaction: its rollback restores it.
    base, cand = runs
    b, c = sides(base, cand)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE pg_class SET reltuples = 0, relpages = 0 WHERE relname = 'experiments_result'"
        )
    plans = []
    for one_version in (True, False):
        params = [PASS, FAIL, FAIL, PASS, base.pk, b.pk, cand.pk, c.pk]
        with pairing_cursor() as cursor:
            cursor.execute("EXPLAIN " + _flips_sql(one_version), params)
            plans.append("\n".join(row[0] for row in cursor.fetchall()))
    left, left_params = _side(base, b, items=False)
    right, right_params = _side(cand, c, items=False)
    version = base.evalset_version
    params = ["pass", "fail", "pass", "fail", *left_params, *right_params]
    with pairing_cursor() as cursor:
        sql = _same_version_sql(left, right)
        cursor.execute("EXPLAIN " + sql, [*params, version.evalset_id, version.pk])
        plans.append("\n".join(row[0] for row in cursor.fetchall()))
    assert all("Join" in plan and "Nested Loop" not in plan for plan in plans), plans
    assert paired_flips(earlier=b.pk, later=c.pk) == (4, 2, 38)


@pytest.mark.parametrize("piece_bytes", [1, 63, 64, 1 << 20])
def test_the_copy_reader_rebuilds_every_row_whatever_the_blocks(monkeypatch, piece_bytes):
    # COPY's blocks end anywhere, also inside a record or the header: the columns are the rows
    n = 500
    records = np.zeros(n, dtype=compare_sql.ROW)
    records["fields"] = 6
    for name, size in (("kind", 2), ("uid", 16), ("ac", 2), ("bc", 2), ("as", 8), ("bs", 8)):
        records[f"{name}_size"] = size
    records["kind"], records["bc"] = np.arange(n) % 3, np.arange(n) % 2
    records["as"], records["bs"] = np.arange(n) / 7, -1.5
    records["uid"] = np.frombuffer(np.arange(2 * n, dtype=">i8").tobytes(), dtype="V16")
    data = b"PGCOPY\n\xff\r\n\0" + bytes(8) + records.tobytes() + b"\xff\xff"
    monkeypatch.setattr(compare_sql, "PIECE_BYTES", piece_bytes)
    reader = compare_sql._ColumnReader()
    for start in range(0, len(data), 37):
        reader.feed(data[start : start + 37])
    columns = reader.columns()
    for name in ("kind", "ac", "bc", "as", "bs"):
        assert columns[name].tolist() == records[name].tolist()
    assert columns["uid"].tobytes() == records["uid"].tobytes()
    empty = compare_sql._ColumnReader()
    empty.feed(data[:19] + b"\xff\xff")
    assert all(column.size == 0 for column in empty.columns().values())
    cut = compare_sql._ColumnReader()
    cut.feed(data[:100])
    with pytest.raises(ValueError, match="middle of a row"):
        cut.columns()
