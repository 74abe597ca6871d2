"""Agreement between reviewers (experiments/stats/agreement.py): Krippendorff's alpha against
his published worked examples and the `krippendorff` package, Cohen's kappa against published
tables, the bootstrap interval over items, alpha with each reviewer left out, edge cases."""

import json
import math

import krippendorff
import numpy as np
import pytest

from experiments.stats.agreement import (
    LEVELS,
    alpha_interval,
    cohen_kappa,
    krippendorff_alpha,
    reliability_data,
    reviewer_agreement,
)

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: four observers
# (rows) and twelve units (columns), values 1-5, blanks missing. Unit 12 has one value only.
PUBLISHED = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
# Its sections C and D: alpha of these data at each level, as printed (three decimals).
PUBLISHED_ALPHA = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849}


def items_of(matrix, reviewers=None) -> list[dict]:
    """Reviewers × units (NaN missing) → one dict a unit, reviewer → label (missing omitted
    or given as None, alternately, both of which mean "no label")."""
    names = reviewers or [f"r{i}" for i in range(len(matrix))]
    items = []
    for u, column in enumerate(zip(*matrix, strict=True)):
        item = {}
        for name, value in zip(names, column, strict=True):
            if not math.isnan(value):
                item[name] = value
            elif u % 2:
                item[name] = None
        items.append(item)
    return items


def package_alpha(matrix, level) -> float:
    return krippendorff.alpha(
        reliability_data=np.asarray(matrix, dtype=float), level_of_measurement=level
    )


# --- published examples ----------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_of_krippendorffs_worked_example(level):
    alpha = krippendorff_alpha(items_of(PUBLISHED), level=level)
    assert round(alpha, 3) == PUBLISHED_ALPHA[level]
    assert alpha == pytest.approx(package_alpha(PUBLISHED, level), abs=1e-12)


def test_worked_example_counts_pairable_values_only():
    result = reviewer_agreement(items_of(PUBLISHED), level="nominal", iterations=200)
    # n.. = 40 pairable values in 11 units; unit 12 (one value) is dropped, as the paper does
    assert (result.units, result.dropped, result.labels) == (11, 1, 40)
    assert result.reviewers == ["r0", "r1", "r3", "r2"]  # first seen: r2 skipped unit 1


def test_alpha_of_binary_data_two_observers():
    # Krippendorff (2011), section A: binary data, two observers, no missing data: alpha = 0.095
    first = [0, 1, 0, 0, 0, 0, 0, 0, 1, 0]
    second = [1, 1, 1, 0, 0, 1, 0, 0, 0, 0]
    alpha = krippendorff_alpha(items_of([first, second]), level="nominal")
    assert round(alpha, 3) == 0.095
    assert alpha == pytest.approx(2 / 21, abs=1e-12)  # 1 - (20 - 1) * 4 / (14 * 6 * 2)


def test_alpha_of_nominal_letters_two_observers():
    # Section B: nominal data (letters), two observers, no missing data: alpha = 0.692
    first = "a a b b d c c c e d d a".split()
    second = "b a b b b c c c e d d d".split()
    items = [{"A": x, "B": y} for x, y in zip(first, second, strict=True)]
    alpha = krippendorff_alpha(items, level="nominal")
    assert round(alpha, 3) == 0.692
    assert alpha == pytest.approx(0.6919642857142858, abs=1e-12)


@pytest.mark.parametrize(
    "table, kappa",
    [
        ([[20, 5], [10, 15]], 0.4),  # 50 grant proposals: p_o = 0.7, p_e = 0.5
        ([[45, 15], [25, 15]], 0.06 / 0.46),  # same p_o = 0.6, p_e = 0.54: kappa 0.1304
        ([[25, 35], [5, 35]], 0.14 / 0.54),  # same p_o = 0.6, p_e = 0.46: kappa 0.2593
    ],
)
def test_cohen_kappa_of_published_tables(table, kappa):
    # The worked examples of Wikipedia's "Cohen's kappa" article
    assert cohen_kappa(table) == pytest.approx(kappa, abs=1e-12)


def test_pairwise_kappa_counts_items_both_labelled():
    # The 50 proposals as labels, plus items only one reviewer labelled (not counted)
    cells = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10
    cells += [("no", "no")] * 15
    items = [{"A": a, "B": b} for a, b in cells] + [{"A": "yes"}, {"B": "no", "A": None}]
    (pair,) = reviewer_agreement(items, level="nominal", iterations=200).pairs
    assert (pair.first, pair.second, pair.items) == ("A", "B", 50)
    assert pair.agreement == pytest.approx(0.7)
    assert pair.kappa == pytest.approx(0.4, abs=1e-12)


def test_every_pair_of_reviewers_gets_a_kappa():
    data = reliability_data(items_of(PUBLISHED), level="nominal")
    pairs = reviewer_agreement(items_of(PUBLISHED), level="nominal", iterations=200).pairs
    assert [(p.first, p.second) for p in pairs] == [
        ("r0", "r1"),
        ("r0", "r3"),
        ("r0", "r2"),
        ("r1", "r3"),
        ("r1", "r2"),
        ("r3", "r2"),
    ]
    for pair in pairs:
        first, second = (data.codes[data.reviewers.index(r)] for r in (pair.first, pair.second))
        both = (first >= 0) & (second >= 0)
        table = np.zeros((5, 5))
        np.add.at(table, (first[both], second[both]), 1)
        assert pair.items == both.sum()
        assert pair.kappa == pytest.approx(cohen_kappa(table), abs=1e-12)


# --- the krippendorff package on random data -------------------------------------------------


def random_matrix(rng: np.random.Generator, level: str) -> np.ndarray:
    """2-6 reviewers × 3-40 items with 0-50 % missing; 2-6 categories, or real numbers."""
    shape = (int(rng.integers(2, 7)), int(rng.integers(3, 41)))
    if level == "interval" and rng.random() < 0.5:
        matrix = np.round(rng.normal(0, 3, shape), 2)
    else:
        matrix = rng.integers(1, int(rng.integers(3, 8)), shape).astype(float)
    matrix[rng.random(shape) < rng.random() * 0.5] = np.nan
    return matrix


@pytest.mark.parametrize("level", LEVELS)
def test_alpha_equals_the_krippendorff_package_on_200_random_matrices(level):
    rng = np.random.default_rng(33)
    compared = undefined = 0
    for i in range(200):
        matrix = random_matrix(rng, level)
        if i % 25 == 0:  # one value wherever there is one: undefined for both
            matrix[~np.isnan(matrix)] = 2.0
        ours = krippendorff_alpha(items_of(matrix.tolist()), level=level)
        with np.errstate(divide="ignore", invalid="ignore"):
            try:
                theirs = package_alpha(matrix, level)
            except ValueError:  # the package refuses a single value in the whole matrix
                theirs = NAN
        if ours is None:
            assert math.isnan(theirs)
            undefined += 1
        else:
            assert ours == pytest.approx(theirs, abs=1e-9)
            compared += 1
    assert (compared, undefined) == (192, 8)  # the comparison ran, undefined cases included


def test_alpha_without_each_reviewer_equals_the_package_on_the_rest():
    result = reviewer_agreement(items_of(PUBLISHED), level="interval", iterations=200)
    for r, name in enumerate(["r0", "r1", "r2", "r3"]):
        rest = [row for i, row in enumerate(PUBLISHED) if i != r]
        assert result.without[name] == pytest.approx(package_alpha(rest, "interval"), abs=1e-12)


def test_an_outlying_reviewer_raises_alpha_when_left_out():
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 6, 300)
    close = [np.clip(truth + rng.integers(-1, 2, 300), 1, 5) for _ in range(3)]
    matrix = [*close, rng.integers(1, 6, 300)]  # the fourth reviewer labels at random
    result = reviewer_agreement(items_of(np.asarray(matrix, float).tolist()), level="ordinal")
    others = [result.without[name] for name in ("r0", "r1", "r2")]
    assert result.without["r3"] > result.alpha > max(others)


# --- the bootstrap interval ------------------------------------------------------------------


def naive_interval(items: list[dict], level: str, iterations: int, seed: int):
    """Items resampled one by one, each resample's alpha computed afresh (by the alpha checked
    against the package above: the package takes minutes on 1,500 resamples of real numbers)."""
    rng = np.random.default_rng(seed)
    alphas = []
    for _ in range(iterations):
        sample = [items[i] for i in rng.integers(0, len(items), len(items))]
        alphas.append(krippendorff_alpha(sample, level=level))
    return np.percentile([a for a in alphas if a is not None], [2.5, 97.5])


@pytest.mark.parametrize(
    "level, values",
    [("nominal", "categories"), ("ordinal", "categories"), ("interval", "real numbers")],
)
def test_interval_agrees_with_resampling_items_one_by_one(level, values):
    # Both ways of drawing agree with the plain bootstrap: here the ordinal labels take a
    # multinomial over groups of identical items, the nominal labels (few columns of totals)
    # and the real numbers (every item its own group) draw items (agreement.BINOMIAL_COST).
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 5, 150).astype(float)
    noise = rng.normal(0, 0.8, (4, 150))
    matrix = truth + noise if values == "real numbers" else np.clip(np.round(truth + noise), 1, 4)
    matrix[rng.random(matrix.shape) < 0.25] = np.nan
    items = items_of(matrix.tolist())
    ours = alpha_interval(items, level=level, iterations=4_000, seed=3)
    reference = naive_interval(items, level, 1_500, seed=4)
    assert ours == pytest.approx(tuple(reference), abs=0.02)
    alpha = krippendorff_alpha(items, level=level)
    assert ours[0] < alpha < ours[1]


def test_interval_is_seeded_and_ignores_the_order_of_items_and_reviewers():
    items = items_of(PUBLISHED)
    first = alpha_interval(items, level="ordinal", iterations=2_000, seed=5)
    assert alpha_interval(items, level="ordinal", iterations=2_000, seed=5) == first
    shuffled = [dict(reversed(list(item.items()))) for item in reversed(items)]
    assert alpha_interval(shuffled, level="ordinal", iterations=2_000, seed=5) == first
    assert alpha_interval(items, level="ordinal", iterations=2_000, seed=6) != first


def test_a_resample_of_one_interval_value_has_no_alpha():
    # Two items: resampled, both can be the first (every label 0.1: alpha undefined, left out),
    # both the second or one of each, so the interval runs from the lower of those two alphas
    # to the higher. The centred 0.1 is not exact in binary, and a resample of 0.1s alone
    # must not pass for perfect agreement (alpha 1) on rounding dust.
    same, apart = {"a": 0.1, "b": 0.1, "c": 0.1}, {"a": 1.0, "b": 5.0}
    low, high = alpha_interval([same, apart], level="interval", iterations=2_000)
    both = krippendorff_alpha([apart, apart], level="interval")
    mixed = krippendorff_alpha([same, apart], level="interval")
    assert (low, high) == pytest.approx((min(both, mixed), max(both, mixed)), abs=1e-12)
    assert krippendorff_alpha([same, same], level="interval") is None


def test_interval_narrows_with_more_items():
    rng = np.random.default_rng(2)

    def width(n: int) -> float:
        truth = rng.integers(0, 3, n)
        matrix = [np.where(rng.random(n) < 0.8, truth, rng.integers(0, 3, n)) for _ in range(3)]
        low, high = alpha_interval(items_of(np.asarray(matrix, float).tolist()), level="nominal")
        return high - low

    assert width(2_000) < width(200) / 2.5  # about sqrt(10) narrower


# --- edge cases ------------------------------------------------------------------------------


def test_one_value_everywhere_has_no_alpha():
    items = [{"a": "ok", "b": "ok", "c": "ok"} for _ in range(10)]
    result = reviewer_agreement(items, level="nominal")
    assert result.alpha is None and result.ci is None
    assert result.units == 10
    assert all(pair.kappa is None for pair in result.pairs)  # p_e = 1: kappa is 0 / 0
    assert all(pair.agreement == 1.0 for pair in result.pairs)
    # one pairable value, another only where it has nothing to pair with: still undefined
    numbers = [{"a": 0.1, "b": 0.1}] * 5 + [{"a": 0.3}]
    assert all(krippendorff_alpha(numbers, level=level) is None for level in LEVELS)


def test_items_with_one_label_are_dropped():
    items = items_of(PUBLISHED)
    extra = items + [{"r0": 5}, {"r1": 1, "r2": None}, {}]
    for level in LEVELS:
        assert krippendorff_alpha(extra, level=level) == krippendorff_alpha(items, level=level)
    result = reviewer_agreement(extra, level="nominal", iterations=100)
    assert (result.units, result.dropped) == (11, 3)  # an empty item is neither


def test_fewer_than_two_reviewers_have_no_agreement():
    result = reviewer_agreement([{"a": 1}, {"a": 2}, {"a": 2}], level="ordinal")
    assert result.alpha is None and result.ci is None
    assert (result.units, result.dropped, result.pairs) == (0, 3, [])
    assert result.without == {"a": None}
    assert reviewer_agreement([], level="interval").alpha is None


def test_unknown_and_skipped_labels_are_missing():
    labelled = [{"a": 1, "b": 1}, {"a": 2, "b": 2}, {"a": 1, "b": 2}]
    with_gaps = [item | {"c": None, "d": NAN} for item in labelled] + [{"c": None, "d": None}]
    assert krippendorff_alpha(with_gaps, level="nominal") == krippendorff_alpha(
        labelled, level="nominal"
    )
    assert reviewer_agreement(with_gaps, level="nominal", iterations=100).reviewers == ["a", "b"]


def test_ordinal_labels_follow_the_given_order():
    words = ["bad", "poor", "fair", "good", "great"]
    numbers = [{r: v for r, v in item.items() if v is not None} for item in items_of(PUBLISHED)]
    named = [{r: words[int(v) - 1] for r, v in item.items()} for item in numbers]
    assert krippendorff_alpha(named, level="ordinal", order=words) == pytest.approx(
        krippendorff_alpha(numbers, level="ordinal"), abs=1e-15
    )
    # by their spelling the words would order differently, and so would the ordinal alpha
    assert krippendorff_alpha(named, level="ordinal") != pytest.approx(
        krippendorff_alpha(numbers, level="ordinal")
    )


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha([{"a": 1, "b": 1}], level="ratio")
    with pytest.raises(ValueError, match="numbers"):
        krippendorff_alpha([{"a": "x", "b": 1}], level="interval")
    with pytest.raises(ValueError, match="finite"):
        krippendorff_alpha([{"a": math.inf, "b": 1}], level="interval")
    with pytest.raises(ValueError, match="outside the order"):
        krippendorff_alpha([{"a": "x", "b": "z"}], level="ordinal", order=["x", "y"])
    with pytest.raises(ValueError, match="ordinal"):
        krippendorff_alpha([{"a": "x", "b": "y"}], level="nominal", order=["x", "y"])
    with pytest.raises(ValueError, match="confidence"):
        reviewer_agreement([{"a": 1, "b": 1}], level="nominal", confidence=1.0)


def test_agreement_to_dict_is_json_safe():
    result = reviewer_agreement(items_of(PUBLISHED), level="interval", iterations=500)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["alpha"] == pytest.approx(PUBLISHED_ALPHA["interval"], abs=5e-4)
    assert data["ci"][0] < data["alpha"] < data["ci"][1]
    assert data["without"][0] == {"reviewer": "r0", "alpha": result.without["r0"]}
    assert data["pairs"][0]["first"] == "r0" and len(data["pairs"]) == 6
