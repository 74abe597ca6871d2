"""Pairwise (A vs B) judging: the order swap, the win rate of B over A, position bias and a
Bradley–Terry ranking of three or more experiments.

Every pair is judged twice, outputs in order (A = baseline, B = candidate) and swapped;
`pair_verdict` folds the two answers into one outcome in the unswapped frame — "A", "B", "tie"
or "unknown" — and flags orders that disagree. Those outcomes feed `win_rate` (a seeded
bootstrap CI, clustered by item when items repeat, and the exact sign test) and, across several
experiments, `bradley_terry`. Plain values in, dataclasses with `to_dict` out; the words for a
page are the caller's (the `words` key is a code, not a sentence).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import optimize
from scipy import stats as scipy_stats
from scipy.sparse.csgraph import connected_components
from scipy.special import expit

from .bootstrap import check_confidence, check_iterations, percentile_bounds
from .clustered import clustered_rate_ci
from .compare import SIGNIFICANCE, _json_id

A, B, TIE, UNKNOWN = "A", "B", "tie", "unknown"
OUTCOMES = (A, B, TIE, UNKNOWN)
TIES_MODES = ("split", "exclude")

# What `win_rate` concludes, for the caller to phrase (cf. compare's "better"/"worse").
B_BETTER, A_BETTER = "b_better", "a_better"
NO_DIFFERENCE, NOTHING_TO_COMPARE = "no_detectable_difference", "nothing_to_compare"

# Bradley–Terry: the standard deviation of the Gaussian prior on each log-strength (a MAP fit).
# Weak enough that thousands of matches move an estimate by well under 0.01, strong enough that
# perfect separation (one model won every match) or a model seen in one match stays finite: one
# match won makes P(winner beats loser) ≈ 0.92, 100 won to none ≈ 0.998.
PRIOR_SD = 4.0
BT_RESAMPLES = 1_000
# Log-strengths closer than this are equal (they share a rank and split a bootstrap's "best").
STRENGTH_TOLERANCE = 1e-6
BLOCK_ELEMENTS = 1 << 22

_ANSWERS = {"a": A, "b": B, "tie": TIE}
_SWAP = {A: B, B: A, TIE: TIE}

Match = tuple[Hashable, Hashable, str] | tuple[Hashable, Hashable, str, Hashable]


# --- one pair, both orders -------------------------------------------------------------------


def parse_answer(answer: object) -> str | None:
    """A judge's answer as "A", "B" or "tie" (case and surrounding space ignored), else None.

    Only those three words count: the judge kind's own parser extracts them from free text, so
    anything else reaching here ("draw", "", None, "A or B") is an answer we could not read."""
    if not isinstance(answer, str):
        return None
    return _ANSWERS.get(answer.strip().casefold())


def pair_verdict(first: object, swapped: object) -> tuple[str, bool]:
    """The outcome of one pair judged in both orders, and whether the orders disagreed.

    ``first`` is the answer with the outputs in order (A = baseline, B = candidate), ``swapped``
    the answer with them swapped, so a swapped "A" means the candidate won. Returns (outcome in
    the unswapped frame, position_inconsistent): agreeing orders give their outcome; any
    disagreement — including a win in one order and a tie in the other — is a tie and flagged.
    An unreadable answer in either order makes the pair ("unknown", False): it is not counted
    in a win rate and is reported apart, and consistency is not judged on half a pair.
    """
    one, other = parse_answer(first), parse_answer(swapped)
    if one is None or other is None:
        return UNKNOWN, False
    other = _SWAP[other]
    if one == other:
        return one, False
    return TIE, True


# --- position bias ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PositionBias:
    """How much the order of the outputs swayed a judge.

    ``judged`` pairs had two readable answers (``unknown`` did not); ``inconsistent`` of them
    changed outcome with the order. ``first_position_wins`` / ``second_position_wins`` count
    single answers that picked the output shown first / second (two answers per pair). Every
    inconsistent pair favours one position (A then A, or a win in one order and a tie in the
    other): ``leaning_first`` / ``leaning_second`` count them, and ``first_position_share`` is
    the share leaning first (0.5 = the inconsistency is noise, not a preference for a slot).
    Intervals are Wilson score intervals over pairs, the independent unit.
    """

    pairs: int
    judged: int
    unknown: int
    inconsistent: int
    inconsistent_rate: float | None
    inconsistent_ci: tuple[float, float] | None
    first_position_wins: int
    second_position_wins: int
    leaning_first: int
    leaning_second: int
    first_position_share: float | None
    first_position_ci: tuple[float, float] | None
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        return _lists(asdict(self), ("inconsistent_ci", "first_position_ci"))


def position_bias(
    pairs: Iterable[tuple[object, object]], *, confidence: float = 0.95
) -> PositionBias:
    """Position bias of a judge from its raw (first, swapped) answers, one tuple per pair."""
    check_confidence(confidence)
    total = unknown = inconsistent = first_wins = second_wins = leaning_first = 0
    for first, swapped in pairs:
        total += 1
        answers = (parse_answer(first), parse_answer(swapped))
        if None in answers:
            unknown += 1
            continue
        # Raw answers name positions: "A" is whichever output was shown first in that order.
        first_here, second_here = answers.count(A), answers.count(B)
        first_wins, second_wins = first_wins + first_here, second_wins + second_here
        if pair_verdict(*answers)[1]:
            inconsistent += 1
            leaning_first += first_here > second_here
    judged = total - unknown
    return PositionBias(
        pairs=total,
        judged=judged,
        unknown=unknown,
        inconsistent=inconsistent,
        inconsistent_rate=inconsistent / judged if judged else None,
        inconsistent_ci=wilson_ci(inconsistent, judged, confidence),
        first_position_wins=first_wins,
        second_position_wins=second_wins,
        leaning_first=leaning_first,
        leaning_second=inconsistent - leaning_first,
        first_position_share=leaning_first / inconsistent if inconsistent else None,
        first_position_ci=wilson_ci(leaning_first, inconsistent, confidence),
        confidence=confidence,
    )


def wilson_ci(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of successes / n (scipy's), None when n is 0."""
    if n == 0:
        return None
    ci = scipy_stats.binomtest(successes, n).proportion_ci(confidence, method="wilson")
    return float(ci.low), float(ci.high)


# --- win rate of B over A --------------------------------------------------------------------


@dataclass(frozen=True)
class WinRate:
    """B (candidate) against A (baseline) over pairs with a known outcome.

    ``rate`` is B's share of the ``n`` pairs it is over: with ``ties_mode`` "split" a tie is
    half a win to each side (n = wins + losses + ties), with "exclude" ties are left out
    (n = wins_b + wins_a). ``items`` is the number of distinct items among those n pairs (None
    for bare outcomes); ``clustered`` when fewer items than pairs, i.e. items repeat. ``ci`` is a
    seeded percentile bootstrap over pairs — over items, all of an item's pairs together, when
    clustered — and None below ``min_sample``.
    ``sign_test_p`` is the two-sided exact sign test of B's wins against A's, ties excluded;
    with repetitions its unit is the item (each item's majority, ``sign_test_unit``), because
    repetitions of one item are not independent evidence. ``words`` is a code: "b_better" /
    "a_better" (p < 0.05 and the CI, when there is one, clear of 0.5),
    "no_detectable_difference" or "nothing_to_compare".
    """

    wins_b: int
    wins_a: int
    ties: int
    unknown: int
    n: int
    ties_mode: str
    rate: float | None
    ci: tuple[float, float] | None
    confidence: float
    resamples: int
    items: int | None
    clustered: bool
    sign_test_unit: str
    sign_test_wins_b: int
    sign_test_wins_a: int
    sign_test_p: float
    words: str

    def to_dict(self) -> dict[str, Any]:
        return _lists(asdict(self), ("ci",))


def win_rate(
    outcomes: Iterable[str | tuple[Hashable, str]],
    *,
    ties: str = "split",
    confidence: float = 0.95,
    resamples: int = 10_000,
    min_sample: int = 30,
    seed: int | None = 0,
) -> WinRate:
    """Win rate of B over A from pair outcomes ("A", "B", "tie"; anything else is unknown).

    ``outcomes`` are either bare outcomes or (item, outcome) tuples, all one way; with items
    that repeat, the CI resamples items and the sign test counts items.
    """
    if ties not in TIES_MODES:
        raise ValueError(f"ties must be one of {TIES_MODES}, got {ties!r}")
    check_iterations(resamples)
    check_confidence(confidence)
    items, labels = _split_outcomes(outcomes)
    known = labels != UNKNOWN
    counted = known & (labels != TIE) if ties == "exclude" else known
    wins_b, wins_a = int(np.count_nonzero(labels == B)), int(np.count_nonzero(labels == A))
    tie_count = int(np.count_nonzero(labels == TIE))
    n = int(np.count_nonzero(counted))
    rate = None
    if n:
        rate = (wins_b + (0.5 * tie_count if ties == "split" else 0)) / n
    groups = None if items is None else _item_tallies(items[counted], labels[counted])
    clustered = groups is not None and len(groups) < n
    if clustered:
        hits = [b + 0.5 * t if ties == "split" else b for b, _a, t in groups.values()]
        trials = [b + a + (t if ties == "split" else 0) for b, a, t in groups.values()]
        ci = clustered_rate_ci(
            hits,
            trials,
            iterations=resamples,
            confidence=confidence,
            min_sample=min_sample,
            seed=seed,
        )
        test_b = sum(b > a for b, a, _t in groups.values())
        test_a = sum(a > b for b, a, _t in groups.values())
    else:
        ci = None
        if n and n >= min_sample:
            ci = _pair_bootstrap(wins_b, wins_a, tie_count, ties, resamples, confidence, seed)
        test_b, test_a = wins_b, wins_a
    p_value = sign_test(test_b, test_a)
    return WinRate(
        wins_b=wins_b,
        wins_a=wins_a,
        ties=tie_count,
        unknown=int(labels.size - np.count_nonzero(known)),
        n=n,
        ties_mode=ties,
        rate=rate,
        ci=ci,
        confidence=confidence,
        resamples=resamples,
        items=None if groups is None else len(groups),
        clustered=clustered,
        sign_test_unit="item" if clustered else "pair",
        sign_test_wins_b=test_b,
        sign_test_wins_a=test_a,
        sign_test_p=p_value,
        words=_words(rate, ci, p_value),
    )


def sign_test(wins_b: int, wins_a: int) -> float:
    """Two-sided exact sign test (binomial, p = 0.5) of wins against losses; 1.0 with neither."""
    if wins_b + wins_a == 0:
        return 1.0
    return float(scipy_stats.binomtest(wins_b, wins_b + wins_a, 0.5).pvalue)


def _split_outcomes(outcomes) -> tuple[np.ndarray | None, np.ndarray]:
    """(items or None, normalised outcome labels) as object/str arrays."""
    rows = list(outcomes)
    keyed = [isinstance(row, tuple | list) for row in rows]
    if any(keyed) and not all(keyed):
        raise ValueError("outcomes are all bare or all (item, outcome) tuples, not a mix")
    if rows and all(keyed):
        if any(len(row) != 2 for row in rows):
            raise ValueError("a keyed outcome is an (item, outcome) tuple")
        items = np.fromiter((row[0] for row in rows), dtype=object, count=len(rows))
        raw = [row[1] for row in rows]
    else:
        items, raw = None, rows
    labels = np.array([parse_answer(label) or UNKNOWN for label in raw], dtype=object)
    return items, labels


def _item_tallies(items: np.ndarray, labels: np.ndarray) -> dict[Hashable, list[int]]:
    """item → [B wins, A wins, ties] over the counted outcomes, in first-seen order."""
    tallies: dict[Hashable, list[int]] = {}
    column = {B: 0, A: 1, TIE: 2}
    for item, label in zip(items, labels, strict=True):
        tallies.setdefault(item, [0, 0, 0])[column[label]] += 1
    return tallies


def _pair_bootstrap(wins_b, wins_a, ties, mode, resamples, confidence, seed):
    """Percentile bootstrap over independent pairs. A resample of n pairs is one multinomial
    draw over the three outcomes (a binomial when ties are excluded): O(B), and identical in
    distribution to resampling the pairs themselves, as compare's paired CI does."""
    rng = np.random.default_rng(seed)
    if mode == "exclude":
        n = wins_b + wins_a
        rates = rng.binomial(n, wins_b / n, size=resamples) / n
    else:
        n = wins_b + wins_a + ties
        draws = rng.multinomial(n, [wins_b / n, wins_a / n, ties / n], size=resamples)
        rates = (draws[:, 0] + 0.5 * draws[:, 2]) / n
    return percentile_bounds(rates, confidence)


def _words(rate, ci, p_value) -> str:
    """Better needs the exact test and the interval (when there is one) to agree, as compare."""
    if rate is None:
        return NOTHING_TO_COMPARE
    if p_value < SIGNIFICANCE and rate > 0.5 and (ci is None or ci[0] > 0.5):
        return B_BETTER
    if p_value < SIGNIFICANCE and rate < 0.5 and (ci is None or ci[1] < 0.5):
        return A_BETTER
    return NO_DIFFERENCE


# --- Bradley–Terry ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Strength:
    """One model's Bradley–Terry standing; the fitted fields are None for a model that has no
    match with a known outcome (nothing to fit: not "average", unknown).

    ``strength`` is the log-strength, centred so the fitted models average 0; ``win_probability``
    is its implied chance of beating a model of average strength, expit(strength). Intervals are
    percentile bootstrap intervals; ``p_best`` is the share of bootstrap fits where this model
    ranked first (a shared first place splits the fit). ``rank`` 1 is the strongest; equal
    strengths share a rank.
    """

    name: Hashable
    matches: int
    wins: int
    losses: int
    ties: int
    strength: float | None
    strength_ci: tuple[float, float] | None
    win_probability: float | None
    win_probability_ci: tuple[float, float] | None
    rank: int | None
    p_best: float | None


@dataclass(frozen=True)
class BradleyTerry:
    """A Bradley–Terry fit: ``models`` in the order of ``names``, ``matches`` with a known outcome
    (``unknown`` were ignored). ``connected`` is False when the models fall into groups that never
    met: strengths across groups then rest on the prior alone and should not be compared."""

    models: list[Strength]
    matches: int
    unknown: int
    items: int | None
    clustered: bool
    connected: bool
    confidence: float
    resamples: int
    prior_sd: float

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["models"] = [
            _lists(model, ("strength_ci", "win_probability_ci")) | {"name": _json_id(model["name"])}
            for model in data["models"]
        ]
        return data


def bradley_terry(
    matches: Iterable[Match],
    *,
    names: Sequence[Hashable] | None = None,
    resamples: int = BT_RESAMPLES,
    confidence: float = 0.95,
    seed: int | None = 0,
) -> BradleyTerry:
    """Fit Bradley–Terry strengths, P(i beats j) = expit(θi − θj), by penalised maximum likelihood.

    A match is (a, b, outcome) or (a, b, outcome, item): "A" means ``a`` won, "B" that ``b`` won,
    "tie" is half a win to each; anything else is unknown and ignored. ``names`` lists every model
    (first-seen order of the matches when omitted); a match naming another model is an error.
    The bootstrap resamples matches — items, all their matches together, when matches carry an
    item and an item has several — and refits each resample. Results do not depend on the order
    of the matches.
    """
    check_iterations(resamples)
    check_confidence(confidence)
    rows = list(matches)
    if names is None:
        names = list(dict.fromkeys(name for row in rows for name in row[:2]))
    index = {name: i for i, name in enumerate(names)}
    if len(index) != len(names):
        raise ValueError("names must be unique")
    units, counts, unknown, items = _bt_units(rows, index)
    k = len(names)
    total = units.sum(axis=0).reshape(k, k)
    fitted = np.flatnonzero(total.sum(axis=1) + total.sum(axis=0) > 0)
    decided = int(round(total.sum()))
    clustered = items is not None and items < decided
    settings = {"confidence": confidence, "resamples": resamples, "prior_sd": PRIOR_SD}
    if fitted.size == 0:
        models = [_unfitted(name, counts[i]) for i, name in enumerate(names)]
        return BradleyTerry(models, 0, unknown, items, clustered, True, **settings)
    sub = np.ix_(fitted, fitted)
    theta = _bt_fit(total[sub])
    boot = _bt_bootstrap(units, fitted, k, theta, clustered, resamples, seed)
    p_best = _best_shares(boot)
    intervals = [percentile_bounds(boot[:, j], confidence) for j in range(fitted.size)]
    position = {int(i): j for j, i in enumerate(fitted)}
    models = []
    for i, name in enumerate(names):
        if i not in position:
            models.append(_unfitted(name, counts[i]))
            continue
        j = position[i]
        low, high = intervals[j]
        models.append(
            Strength(
                name=name,
                **counts[i],
                strength=float(theta[j]),
                strength_ci=(low, high),
                win_probability=float(expit(theta[j])),
                win_probability_ci=(float(expit(low)), float(expit(high))),
                rank=1 + int(np.count_nonzero(theta > theta[j] + STRENGTH_TOLERANCE)),
                p_best=float(p_best[j]),
            )
        )
    graph = (total + total.T)[sub] > 0
    connected = connected_components(graph, directed=False)[0] == 1
    return BradleyTerry(models, decided, unknown, items, clustered, bool(connected), **settings)


def _bt_units(rows, index) -> tuple[np.ndarray, list[dict[str, int]], int, int | None]:
    """The resampling units as flattened k × k win matrices (wins[i, j] = i's wins over j, a tie
    half to each), one row per unit, in a canonical order so that the order of the matches never
    changes a seeded bootstrap: per item when matches carry items (items sorted), otherwise one
    row per distinct (pair, outcome) cell holding all its matches (the bootstrap weighs cells by
    their count). Returns (units, each model's record, unknown count, item count or None)."""
    k = len(index)
    keyed = {len(row) for row in rows}
    if keyed - {3, 4} or len(keyed) > 1:
        raise ValueError("matches are all (a, b, outcome) or all (a, b, outcome, item)")
    with_items = keyed == {4}
    cells: dict[Hashable, np.ndarray] = {}
    record = [{"matches": 0, "wins": 0, "losses": 0, "ties": 0} for _ in index]
    unknown = 0
    for row in rows:
        a, b, label = row[:3]
        for name in (a, b):
            if name not in index:
                raise ValueError(f"match names {name!r}, which is not among names")
        if a == b:
            raise ValueError(f"a model cannot play itself ({a!r})")
        outcome = parse_answer(label)
        if outcome is None:
            unknown += 1
            continue
        i, j = index[a], index[b]
        record[i]["matches"] += 1
        record[j]["matches"] += 1
        if i > j:  # (b, a, "B") is the same match as (a, b, "A")
            i, j, outcome = j, i, _SWAP[outcome]
        key = row[3] if with_items else (i, j, outcome)
        wins = cells.setdefault(key, np.zeros((k, k)))
        if outcome == TIE:
            wins[i, j] += 0.5
            wins[j, i] += 0.5
            record[i]["ties"] += 1
            record[j]["ties"] += 1
        else:
            winner, loser = (i, j) if outcome == A else (j, i)
            wins[winner, loser] += 1
            record[winner]["wins"] += 1
            record[loser]["losses"] += 1
    order = sorted(cells, key=_sort_key if with_items else None)
    units = np.array([cells[key].reshape(-1) for key in order]).reshape(len(order), k * k)
    return units, record, unknown, len(order) if with_items else None


def _sort_key(item: Hashable) -> tuple[str, str]:
    return type(item).__name__, str(item)


def _unfitted(name: Hashable, counts: dict[str, int]) -> Strength:
    return Strength(name, **counts, **dict.fromkeys(_FITTED_FIELDS))


_FITTED_FIELDS = "strength strength_ci win_probability win_probability_ci rank p_best".split()


def _bt_fit(wins: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """MAP log-strengths for a win matrix: minimise −log L + Σθ²/(2·PRIOR_SD²) with scipy's
    trust-region Newton method (exact gradient and Hessian; the objective is strictly convex).
    The prior also pins the otherwise free shift: at the optimum Σθ = 0, because the
    likelihood's gradient always sums to zero."""
    games = wins + wins.T
    won = wins.sum(axis=1)
    precision = 1.0 / PRIOR_SD**2

    def objective(theta):
        diff = theta[:, None] - theta[None, :]
        value = float(np.sum(wins * np.logaddexp(0.0, -diff))) + precision * theta @ theta / 2
        gradient = (games * expit(diff)).sum(axis=1) - won + precision * theta
        return value, gradient

    def hessian(theta):
        p = expit(theta[:, None] - theta[None, :])
        weight = games * p * (1 - p)
        h = -weight
        h[np.diag_indices_from(h)] = weight.sum(axis=1) + precision
        return h

    x0 = np.zeros(wins.shape[0]) if start is None else start
    result = optimize.minimize(
        objective, x0, jac=True, hess=hessian, method="trust-exact", options={"gtol": 1e-10}
    )
    return result.x - result.x.mean()


def _bt_bootstrap(units, fitted, k, theta, clustered, resamples, seed) -> np.ndarray:
    """Log-strengths of the fitted models refitted on ``resamples`` resamples (rows).

    Unclustered units are distinct (pair, outcome) cells holding all their matches, so a resample
    of N matches is one multinomial draw of N over the cells by their share of matches; clustered
    units are items, drawn uniformly. Either way a resample's win matrix is weights @ units, and
    each refit starts from the full-data estimate."""
    rng = np.random.default_rng(seed)
    if clustered:
        draws, shares = units.shape[0], np.full(units.shape[0], 1.0 / units.shape[0])
        per_unit = units
    else:
        sizes = units.sum(axis=1)
        draws = int(round(sizes.sum()))
        shares = sizes / sizes.sum()
        per_unit = units / sizes[:, None]  # one match's win matrix per cell
    sub = np.ix_(fitted, fitted)
    out = np.empty((resamples, fitted.size))
    rows = max(1, BLOCK_ELEMENTS // max(1, units.shape[0]))
    for start in range(0, resamples, rows):
        count = min(rows, resamples - start)
        weights = rng.multinomial(draws, shares, size=count)
        for r, wins in enumerate((weights @ per_unit).reshape(count, k, k)):
            out[start + r] = _bt_fit(wins[sub], theta)
    return out


def _best_shares(boot: np.ndarray) -> np.ndarray:
    """Per model, the share of bootstrap fits where it was strongest; a tie splits the fit."""
    top = boot >= boot.max(axis=1, keepdims=True) - STRENGTH_TOLERANCE
    return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)


def _lists(data: dict[str, Any], keys: Sequence[str]) -> dict[str, Any]:
    """Tuples of intervals as JSON lists."""
    return data | {key: list(data[key]) if data[key] is not None else None for key in keys}
