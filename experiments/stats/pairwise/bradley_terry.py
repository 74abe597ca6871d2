"""Bradley–Terry: a ranking of three or more experiments from their pairwise matches, with
bootstrap intervals on the strengths and the probability that each is the best."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..bootstrap import check_confidence, check_iterations, percentile_bounds
from ..compare import _json_id
from .common import SWAP, TIE, A, lists, parse_answer

# Bradley–Terry: the standard deviation of the Gaussian prior on each log-strength (a MAP fit).
# Weak enough that thousands of matches move an estimate by well under 0.01, strong enough that
# perfect separation (one model won every match) or a model seen in one match stays finite: one
# match won makes P(winner beats loser) ≈ 0.92, 100 won to none ≈ 0.998.
PRIOR_SD = 4.0
BT_RESAMPLES = 1_000
# Log-strengths closer than this are equal (they share a rank and split a bootstrap's "best").
STRENGTH_TOLERANCE = 1e-6
BLOCK_ELEMENTS = 1 << 22

Match = tuple[Hashable, Hashable, str] | tuple[Hashable, Hashable, str, Hashable]


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
            lists(model, ("strength_ci", "win_probability_ci")) | {"name": _json_id(model["name"])}
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
    # scipy loads on first use: imported with the module it costs every process ~76 MB
    from scipy.sparse.csgraph import connected_components
    from scipy.special import expit

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
            i, j, outcome = j, i, SWAP[outcome]
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
    # scipy loads on first use: imported with the module it costs every process ~76 MB
    from scipy import optimize
    from scipy.special import expit

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
