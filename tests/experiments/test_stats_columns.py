"""The array forms of the statistics the aggregates use agree with the plain rules: tag counts
and per-item tag cells from grouped rows, first-seen item indices, per-item totals, the turn
rules on arrays, and rows read a chunk at a time."""

from __future__ import annotations

import json

import numpy as np
import pytest

from experiments.stats.clustered import item_groups, item_totals, repetition_summary
from experiments.stats.columns import KeyCodes, chunked, codes_among, columns_of, first_seen_index
from experiments.stats.per_turn import item_outcomes
from experiments.stats.summary import summarize
from experiments.stats.tags import (
    row_tag_cells,
    tag_breakdown,
    tag_item_cells,
    tag_set,
    tag_sets,
)

DECIDE = {True: "pass", False: "fail"}


def test_a_tag_set_is_its_distinct_tags():
    assert tag_set(["b", "a", "b"]) == ("b", "a")
    assert tag_set("pii") == ("pii",)
    assert tag_set(None) == () and tag_set([]) == ()
    codes, sets = tag_sets(['["a", "a"]', "[]", '["a", "a"]', "null"], parse=json.loads)
    assert codes.tolist() == [0, 1, 0, 2] and sets == [("a",), (), ()]


def test_grouped_tag_counts_equal_the_counts_of_single_rows():
    rng = np.random.default_rng(5)
    names = [["a"], ["b"], ["a", "b"], [], None, ["c", "a", "c"]]
    tags = [names[i] for i in rng.integers(0, len(names), 500)]
    codes = rng.integers(0, 3, 500)
    verdicts = [("pass", "fail", "unknown")[c] for c in codes]
    by_row = summarize([None] * 500, verdicts, tags).tags
    # the same rows grouped by (tag set, verdict), as a GROUP BY returns them
    groups: dict = {}
    for value, code in zip(tags, codes, strict=True):
        key = (tuple(value or ()), int(code))
        groups[key] = groups.get(key, 0) + 1
    set_index, sets = tag_sets([list(k[0]) for k in groups])
    counts = np.array(list(groups.values()))
    grouped = tag_breakdown(set_index, sets, np.array([k[1] for k in groups]), counts)
    assert grouped == by_row and list(grouped) == ["a", "b", "c"]


def test_tag_cells_merge_an_items_groups_in_first_seen_order():
    # groups in row order: item 7 (a), item 3 (a, b), item 7 again with other tags (b),
    # item 5 (a) with nothing decided
    items = np.array([7, 3, 7, 5])
    set_index, sets = tag_sets([["a"], ["a", "b"], ["b"], ["a"]])
    fails, decided = np.array([1, 0, 2, 0]), np.array([2, 1, 3, 0])
    cells = tag_item_cells(items, set_index, sets, fails, decided)
    assert list(cells) == ["a", "b"]
    assert [c.tolist() for c in cells["a"]] == [[1, 0], [2, 1]]  # items 7, 3
    assert [c.tolist() for c in cells["b"]] == [[0, 2], [1, 3]]  # items 3, 7
    assert tag_item_cells(items, set_index, sets, fails, np.zeros(4, int)) == {}


def test_first_seen_index_of_integers_and_of_anything():
    index, keys = first_seen_index(np.array([30, 10, 30, 20, 10]))
    assert index.tolist() == [0, 1, 0, 2, 1] and keys.tolist() == [30, 10, 20]
    index, keys = first_seen_index(["b", ("x", 1), "b"])
    assert index.tolist() == [0, 1, 0] and keys == ["b", ("x", 1)]


def test_codes_among_known_keys():
    keys = np.array([-5, 90, 7])
    assert codes_among(np.array([7, -5, 3, 90, 7]), keys).tolist() == [2, 0, 3, 1, 2]
    assert codes_among(np.array([1, 2]), np.zeros(0, int)).tolist() == [0, 0]


def test_item_totals_add_scores_in_row_order():
    scores = np.array([0.1, 0.2, np.nan, 0.3, 0.7])
    totals = item_totals(np.array([0, 1, 0, 0, 1]), 2, np.array([0, 1, 2, 0, 0]), scores)
    assert totals.rows.tolist() == [3, 2] and totals.decided.tolist() == [2, 2]
    assert totals.passes.tolist() == [2, 1] and totals.fails.tolist() == [0, 1]
    assert totals.scored.tolist() == [2, 2]
    assert totals.sums.tolist() == [0.0 + 0.1 + 0.3, 0.0 + 0.2 + 0.7]


def test_repetition_summary_matches_a_count_by_hand():
    items = ["x", "x", "y", "y", "z"]
    verdicts = ["pass", "fail", "pass", "pass", "unknown"]
    summary = repetition_summary(items, verdicts, [1.0, 0.0, 0.5, None, None], k=2)
    assert summary == {
        "k": 2,
        "items": 3,
        "pass_at_k": 1.0,
        "pass_at_k_items": 2,
        "pass_all_k": 0.5,
        "pass_all_k_items": 2,
        "item_pass_share_mean": 0.75,
        "item_mean_score": 0.5,
    }


def plain_outcome(turns, rule):
    """The rules as the docstring words them, one item at a time."""
    verdicts = [v for v, _s in turns]
    scored = [s for _v, s in turns if s is not None]
    if rule == "all_pass":
        mean = sum(scored) / len(scored) if scored else None
        if "fail" in verdicts:
            return "fail", mean
        return ("pass" if all(v == "pass" for v in verdicts) else "unknown"), mean
    if not scored:
        return "unknown", None
    score = sum(scored) / len(scored) if rule == "mean" else min(scored)
    return DECIDE[score >= 0.5], score


@pytest.mark.parametrize("rule", ["all_pass", "mean", "min"])
def test_turn_rules_on_arrays_equal_the_plain_rules(rule):
    rng = np.random.default_rng(11)
    items = sorted(rng.integers(0, 40, 300).tolist())
    scores = [None if rng.random() < 0.2 else float(rng.random()) for _ in items]
    verdicts = ["unknown" if s is None else DECIDE[s >= 0.5] for s in scores]
    outcomes = item_outcomes(
        items, verdicts, scores, aggregate=rule, decide=lambda s: DECIDE[s >= 0.5]
    )
    groups = item_groups(items, list(zip(verdicts, scores, strict=True)))
    assert list(outcomes) == list(groups)
    for item, turns in groups.items():
        assert (outcomes[item].verdict, outcomes[item].score) == plain_outcome(turns, rule)
        assert outcomes[item].turns == len(turns)


def test_rows_are_read_a_chunk_at_a_time_into_typed_columns():
    statuses = KeyCodes()
    rows = [(i, None if i % 3 == 0 else i / 10, ("ok", "error")[i % 2]) for i in range(10)]
    chunks = chunked(rows, 4)
    ids, scores, status = columns_of(chunks, (np.int32, np.float64, statuses))
    assert ids.dtype == np.int32 and ids.tolist() == list(range(10))
    assert np.isnan(scores[[0, 3, 6, 9]]).all() and scores[1] == 0.1
    assert [statuses.keys[c] for c in status] == ["ok", "error"] * 5
    empty = columns_of(chunked([]), (np.int8, KeyCodes()))
    assert [a.tolist() for a in columns_of(chunked([(1, None)]), (np.int8, np.float32))][0] == [1]
    assert [a.size for a in empty] == [0, 0] and empty[0].dtype == np.int8


def test_tag_cells_of_single_rows_equal_those_of_grouped_rows():
    rng = np.random.default_rng(2)
    items = np.sort(rng.integers(0, 50, 400))
    set_index, sets = tag_sets([[["a"], ["a", "b"], [], ["c"]][i % 4] for i in items])
    codes = rng.integers(0, 3, 400)
    cells = row_tag_cells(first_seen_index(items)[0], set_index, sets, codes)
    decided = codes != 2
    expected = tag_item_cells(
        items[decided], set_index[decided], sets, (codes == 1)[decided], decided[decided]
    )
    assert list(cells) == list(expected) == ["a", "b", "c"]
    for tag, (fails, rows) in expected.items():
        assert (cells[tag][0].tolist(), cells[tag][1].tolist()) == (fails.tolist(), rows.tolist())
