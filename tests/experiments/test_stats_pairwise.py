"""Pairwise statistics: the order swap, position bias, win rate of B over A with its bootstrap
CI and sign test, and Bradley–Terry on synthetic data with known strengths."""

import json
import math
import random
import uuid

import numpy as np
import pytest
from scipy import stats as scipy_stats
from scipy.special import expit

from experiments.stats import pairwise as pw
from experiments.stats.pairwise import (
    bradley_terry,
    pair_verdict,
    position_bias,
    sign_test,
    wilson_ci,
    win_rate,
)

Z95 = 1.959963984540054


def wilson_by_hand(k, n, z=Z95):
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


# --- the order swap --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "swapped", "expected"),
    [
        ("A", "B", ("A", False)),  # baseline first, then baseline second: A both times
        ("B", "A", ("B", False)),  # the candidate won in both orders
        ("tie", "tie", ("tie", False)),
        ("A", "A", ("tie", True)),  # the first slot won both times: the order decided
        ("B", "B", ("tie", True)),
        ("A", "tie", ("tie", True)),  # a win in one order and a tie in the other disagree too
        ("tie", "A", ("tie", True)),
        (" a ", "b", ("A", False)),  # case and surrounding space do not matter
        ("TIE", "Tie", ("tie", False)),
    ],
)
def test_pair_verdict_folds_both_orders_into_the_unswapped_frame(first, swapped, expected):
    assert pair_verdict(first, swapped) == expected


@pytest.mark.parametrize(
    ("first", "swapped"),
    [("A", "draw"), ("", "A"), (None, "B"), ("B", "A or B"), ("unknown", "unknown"), (1, "A")],
)
def test_an_unreadable_answer_makes_the_pair_unknown_and_not_inconsistent(first, swapped):
    assert pair_verdict(first, swapped) == ("unknown", False)


# --- position bias ---------------------------------------------------------------------------


def test_position_bias_counts_on_a_hand_made_judge():
    answers = [
        ("A", "B"),  # consistent: baseline
        ("B", "A"),  # consistent: candidate
        ("tie", "tie"),  # consistent tie
        ("A", "A"),  # first slot both times
        ("A", "A"),
        ("tie", "A"),  # first slot once, tie once
        ("B", "B"),  # second slot both times
        ("x", "A"),  # unreadable: not judged
    ]
    bias = position_bias(answers)
    assert (bias.pairs, bias.judged, bias.unknown, bias.inconsistent) == (8, 7, 1, 4)
    assert bias.inconsistent_rate == pytest.approx(4 / 7)
    assert bias.inconsistent_ci == pytest.approx(wilson_by_hand(4, 7), abs=1e-12)
    # single answers naming a slot: A/B 1+1, B/A 1+1, A/A 2+0 twice, tie/A 1+0, B/B 0+2
    assert (bias.first_position_wins, bias.second_position_wins) == (7, 4)
    assert (bias.leaning_first, bias.leaning_second) == (3, 1)
    assert bias.first_position_share == pytest.approx(3 / 4)
    assert bias.first_position_ci == pytest.approx(wilson_by_hand(3, 4), abs=1e-12)
    json.dumps(bias.to_dict())


def test_a_consistent_judge_has_no_position_bias_to_report():
    bias = position_bias([("A", "B"), ("B", "A"), ("tie", "tie")] * 5)
    assert bias.inconsistent == 0 and bias.inconsistent_rate == 0.0
    assert bias.inconsistent_ci[0] == pytest.approx(0.0, abs=1e-12)
    assert bias.first_position_wins == bias.second_position_wins == 10
    assert bias.first_position_share is None and bias.first_position_ci is None


def test_position_bias_of_nothing_judged():
    bias = position_bias([("?", "A")])
    assert (bias.judged, bias.unknown) == (0, 1)
    assert bias.inconsistent_rate is None and bias.inconsistent_ci is None
    assert position_bias([]).pairs == 0


def test_wilson_interval_matches_the_formula():
    assert wilson_ci(8, 10) == pytest.approx(wilson_by_hand(8, 10), abs=1e-12)
    assert wilson_ci(0, 0) is None


# --- win rate --------------------------------------------------------------------------------

# 8 candidate wins, 2 baseline wins, 2 ties and one pair nobody could read.
TABLE = ["B"] * 8 + ["A"] * 2 + ["tie"] * 2 + ["unknown"]


def test_win_rate_with_ties_split_on_a_hand_computed_table():
    result = win_rate(TABLE, min_sample=1)
    assert (result.wins_b, result.wins_a, result.ties, result.unknown) == (8, 2, 2, 1)
    assert result.n == 12
    assert result.rate == pytest.approx((8 + 0.5 * 2) / 12)  # 0.75
    assert result.ties_mode == "split"


def test_win_rate_with_ties_excluded_on_a_hand_computed_table():
    result = win_rate(TABLE, ties="exclude", min_sample=1)
    assert (result.wins_b, result.wins_a, result.ties, result.unknown) == (8, 2, 2, 1)
    assert result.n == 10
    assert result.rate == pytest.approx(8 / 10)


def test_the_sign_test_is_the_two_sided_binomial_and_ignores_ties():
    # 8 wins, 2 losses: 2 * (C(10,0) + C(10,1) + C(10,2)) / 2**10 = 2 * 56 / 1024
    expected = 0.109375
    for ties in ("split", "exclude"):
        assert win_rate(TABLE, ties=ties, min_sample=1).sign_test_p == pytest.approx(expected)
    assert sign_test(8, 2) == pytest.approx(expected)
    assert sign_test(5, 5) == 1.0
    assert sign_test(0, 0) == 1.0
    assert sign_test(0, 5) == pytest.approx(2 / 32)
    assert sign_test(30, 12) == pytest.approx(scipy_stats.binomtest(30, 42).pvalue)


@pytest.mark.parametrize("ties", ["split", "exclude"])
def test_the_interval_contains_the_rate_and_narrows_as_n_grows(ties):
    widths = []
    for scale in (3, 30, 300):
        result = win_rate(TABLE * scale, ties=ties, seed=1)
        low, high = result.ci
        assert low <= result.rate <= high
        assert 0.0 <= low and high <= 1.0
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]
    # at large n the bootstrap is about ±1.96 standard errors of a pair's score (1, ½ or 0)
    n, variance = (3600, 8.5 / 12 - 0.75**2) if ties == "split" else (3000, 0.8 * 0.2)
    assert widths[2] == pytest.approx(2 * Z95 * math.sqrt(variance / n), rel=0.1)


def test_the_bootstrap_is_seeded():
    assert win_rate(TABLE * 5, seed=7).ci == win_rate(TABLE * 5, seed=7).ci


def test_below_the_minimum_sample_there_is_no_interval():
    result = win_rate(TABLE)  # n = 12 < 30
    assert result.ci is None and result.rate == pytest.approx(0.75)


def test_words_follow_the_sign_test_and_the_interval():
    assert win_rate(["B"] * 80 + ["A"] * 20).words == pw.B_BETTER
    assert win_rate(["B"] * 20 + ["A"] * 80).words == pw.A_BETTER
    assert win_rate(["B"] * 52 + ["A"] * 48).words == pw.NO_DIFFERENCE
    # below the minimum sample the exact test alone decides: 10 to 0 is p ≈ 0.002
    small = win_rate(["B"] * 10)
    assert small.ci is None and small.words == pw.B_BETTER
    assert win_rate(["unknown", "tie"], ties="exclude").words == pw.NOTHING_TO_COMPARE
    empty = win_rate([])
    assert (empty.n, empty.rate, empty.ci, empty.sign_test_p) == (0, None, None, 1.0)


def test_repetitions_cluster_the_interval_and_the_sign_test_by_item():
    # 40 items, 5 repetitions each; an item's repetitions agree (the item decides), so the
    # evidence is 40 items, not 200 pairs.
    rng = np.random.default_rng(3)
    outcomes = []
    for item in range(40):
        label = "B" if rng.random() < 0.6 else "A"
        outcomes += [(item, label)] * 5
    clustered = win_rate(outcomes, seed=0)
    naive = win_rate([label for _item, label in outcomes], seed=0)
    assert clustered.clustered and not naive.clustered
    assert clustered.items == 40 and clustered.n == 200
    assert clustered.rate == naive.rate
    width = clustered.ci[1] - clustered.ci[0]
    assert width > 1.8 * (naive.ci[1] - naive.ci[0])
    assert clustered.sign_test_unit == "item"
    assert clustered.sign_test_wins_b + clustered.sign_test_wins_a == 40
    assert clustered.sign_test_p == pytest.approx(
        scipy_stats.binomtest(clustered.sign_test_wins_b, 40).pvalue
    )


def test_items_without_repetitions_are_plain_pairs():
    keyed = win_rate([(i, label) for i, label in enumerate(TABLE * 5)], seed=2)
    bare = win_rate(TABLE * 5, seed=2)
    assert not keyed.clustered and keyed.items == 60  # items with a counted pair
    assert (keyed.ci, keyed.sign_test_p) == (bare.ci, bare.sign_test_p)


def test_win_rate_to_dict_is_json_safe_and_bad_input_is_refused():
    data = json.loads(json.dumps(win_rate(TABLE * 5).to_dict()))
    assert data["rate"] == pytest.approx(0.75) and len(data["ci"]) == 2
    with pytest.raises(ValueError):
        win_rate(TABLE, ties="half")
    with pytest.raises(ValueError):
        win_rate(["A", ("item", "B")])
    with pytest.raises(ValueError):
        win_rate(TABLE, confidence=1.0)


# --- Bradley–Terry ---------------------------------------------------------------------------

TRUE = {"north": 1.0, "east": 0.3, "south": -0.2, "west": -1.1}


def simulated_matches(count=6000, seed=11, ties=0.0):
    """Random pairings, won with P = expit(θa − θb); a share ``ties`` of matches is a tie."""
    rng = np.random.default_rng(seed)
    names = list(TRUE)
    matches = []
    for _ in range(count):
        i, j = rng.choice(len(names), 2, replace=False)
        a, b = names[i], names[j]
        if rng.random() < ties:
            matches.append((a, b, "tie"))
        else:
            matches.append((a, b, "A" if rng.random() < expit(TRUE[a] - TRUE[b]) else "B"))
    return matches


@pytest.fixture(scope="module")
def fitted():
    return bradley_terry(simulated_matches(), names=list(TRUE), resamples=400, seed=0)


def test_bradley_terry_recovers_known_strengths(fitted):
    by_name = {m.name: m for m in fitted.models}
    order = sorted(by_name, key=lambda name: -by_name[name].strength)
    assert order == ["north", "east", "south", "west"]
    assert [by_name[name].rank for name in order] == [1, 2, 3, 4]
    truth = np.array(list(TRUE.values()))
    truth -= truth.mean()
    estimate = np.array([by_name[name].strength for name in TRUE])
    assert estimate.mean() == pytest.approx(0.0, abs=1e-9)
    assert np.abs(estimate - truth).max() < 0.12
    # every pairwise log-strength difference within tolerance
    diffs = estimate[:, None] - estimate[None, :]
    assert np.abs(diffs - (truth[:, None] - truth[None, :])).max() < 0.2
    for model in by_name.values():
        low, high = model.strength_ci
        assert low < model.strength < high
        assert high - low < 0.3
        assert model.win_probability == pytest.approx(expit(model.strength))
        assert model.win_probability_ci == pytest.approx(expit(np.array(model.strength_ci)))
        assert model.matches == model.wins + model.losses + model.ties
    # the truth lies inside (nearly) every interval
    inside = [
        by_name[name].strength_ci[0] <= t <= by_name[name].strength_ci[1]
        for name, t in zip(TRUE, truth, strict=True)
    ]
    assert sum(inside) >= 3


def test_p_best_sums_to_one_and_goes_to_the_clear_leader(fitted):
    shares = [m.p_best for m in fitted.models]
    assert sum(shares) == pytest.approx(1.0)
    assert fitted.models[0].p_best > 0.99  # north is 0.7 log-odds ahead on 6,000 matches
    assert fitted.matches == 6000 and fitted.unknown == 0 and fitted.connected
    json.dumps(fitted.to_dict())


def test_p_best_is_shared_between_close_models():
    matches = [("a", "b", "A")] * 51 + [("a", "b", "B")] * 49 + [("a", "c", "A")] * 90
    matches += [("c", "a", "A")] * 10 + [("b", "c", "A")] * 90 + [("b", "c", "B")] * 10
    result = bradley_terry(matches, resamples=500, seed=4)
    a, b, c = result.models
    assert sum(m.p_best for m in result.models) == pytest.approx(1.0)
    assert 0.2 < a.p_best < 0.8 and 0.2 < b.p_best < 0.8
    assert c.p_best < 0.01 and c.rank == 3


def test_bradley_terry_does_not_depend_on_the_order_of_the_matches(fitted):
    matches = simulated_matches()
    shuffled = matches[:]
    random.Random(5).shuffle(shuffled)
    # the same match written from the other side: (b, a, "B") is (a, b, "A")
    flipped = [(b, a, {"A": "B", "B": "A"}.get(o, o)) for a, b, o in shuffled]
    for variant in (shuffled, flipped):
        again = bradley_terry(variant, names=list(TRUE), resamples=400, seed=0)
        for x, y in zip(again.models, fitted.models, strict=True):
            assert x.strength == pytest.approx(y.strength, abs=1e-9)
            assert x.strength_ci == pytest.approx(y.strength_ci, abs=1e-9)
            assert x.p_best == pytest.approx(y.p_best, abs=1e-12)
            assert (x.rank, x.wins, x.losses, x.ties) == (y.rank, y.wins, y.losses, y.ties)


def test_ties_count_half_a_win_to_each_side():
    # a 2-1 record plus two ties is 3-2 in half-wins: θa − θb = log(3/2) without the prior
    record = [("a", "b", "A")] * 2 + [("a", "b", "B")] + [("a", "b", "tie")] * 2
    with_ties = bradley_terry(record)
    a, b = with_ties.models
    assert (a.wins, a.losses, a.ties) == (2, 1, 2)
    # the prior pulls a little toward 0 at n = 5 (0.395 against 0.405), nothing at n = 2,000
    assert a.strength - b.strength == pytest.approx(math.log(3 / 2), rel=0.05)
    big = bradley_terry(record * 400, resamples=50)
    assert big.models[0].strength - big.models[1].strength == pytest.approx(math.log(1.5), rel=1e-3)


def test_all_ties_make_everyone_equal():
    matches = [("a", "b", "tie"), ("b", "c", "tie"), ("a", "c", "tie")] * 10
    result = bradley_terry(matches, resamples=200)
    for model in result.models:
        assert model.strength == pytest.approx(0.0, abs=1e-9)
        assert model.win_probability == pytest.approx(0.5)
        assert model.rank == 1
        assert model.p_best == pytest.approx(1 / 3)


def test_perfect_separation_stays_finite_thanks_to_the_prior():
    matches = [("a", "b", "A")] * 50 + [("b", "c", "A")] * 50 + [("a", "c", "A")] * 50
    result = bradley_terry(matches, resamples=100)
    a, b, c = result.models
    assert all(math.isfinite(m.strength) for m in result.models)
    assert a.strength > b.strength > c.strength
    assert (a.rank, b.rank, c.rank) == (1, 2, 3)
    assert a.p_best == 1.0
    assert 0.9 < expit(a.strength - c.strength) < 1.0
    one = bradley_terry([("a", "b", "A")]).models[0]
    assert math.isfinite(one.strength) and one.win_probability < 0.9


def test_a_model_with_no_matches_is_listed_but_not_fitted():
    matches = [("a", "b", "A"), ("a", "b", "B"), ("b", "c", "A"), ("a", "c", "unknown")]
    result = bradley_terry(matches, names=["a", "b", "c", "d"], resamples=100)
    d = result.models[3]
    assert (d.name, d.matches, d.strength, d.strength_ci, d.rank, d.p_best) == (
        "d",
        0,
        None,
        None,
        None,
        None,
    )
    assert result.matches == 3 and result.unknown == 1
    assert sum(m.p_best for m in result.models[:3]) == pytest.approx(1.0)
    # c only played (and lost to) b; its "unknown" match with a is ignored
    assert result.models[2].matches == 1
    nothing = bradley_terry([("a", "b", "?")], names=["a", "b"])
    assert all(m.strength is None for m in nothing.models) and nothing.matches == 0


def test_groups_that_never_met_are_flagged():
    result = bradley_terry([("a", "b", "A"), ("c", "d", "A")] * 5, resamples=50)
    assert not result.connected
    assert fitted_names(result) == ["a", "b", "c", "d"]


def fitted_names(result):
    return [m.name for m in result.models if m.strength is not None]


def test_matches_with_items_resample_items():
    rng = np.random.default_rng(8)
    matches = []
    names = list(TRUE)
    for item in range(300):
        for i in range(4):
            for j in range(i + 1, 4):
                a, b = names[i], names[j]
                won = rng.random() < expit(TRUE[a] - TRUE[b])
                matches.append((a, b, "A" if won else "B", uuid.UUID(int=item)))
    result = bradley_terry(matches, resamples=200, seed=1)
    assert result.clustered and result.items == 300 and result.matches == 1800
    assert [m.rank for m in result.models] == [1, 2, 3, 4]
    assert sum(m.p_best for m in result.models) == pytest.approx(1.0)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["models"][0]["name"] == "north"


def test_bad_matches_are_refused():
    with pytest.raises(ValueError):
        bradley_terry([("a", "a", "A")])
    with pytest.raises(ValueError):
        bradley_terry([("a", "z", "A")], names=["a", "b"])
    with pytest.raises(ValueError):
        bradley_terry([("a", "b", "A"), ("a", "b", "A", "item")])
    with pytest.raises(ValueError):
        bradley_terry([], names=["a", "a"])
