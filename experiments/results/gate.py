"""The CI gate: does a candidate run regress against a baseline, honestly?

An evaluator fails the gate when its pass rate dropped significantly — the exact one-sided
McNemar test on the paired rows is below `alpha` AND the paired bootstrap interval of the
difference (at 1 − 2·alpha, i.e. a one-sided 1 − alpha bound) lies entirely below −max_drop —
when its unknown rate rose significantly (the same exact test on decided→unknown against
unknown→decided flips), when the candidate's unknown rate exceeds `max_unknown_rate`, or when
fewer than `min_decided` rows were decided on both sides. So a run that decided nothing never
passes; noise (a few flips either way) passes; a real regression fails with the numbers that
show it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.utils.translation import gettext as _

from assay.vocabulary import Verdict

from ..models import Experiment, ExperimentStatus, GateDecision, Result
from ..stats import compare_paired
from ..stats.compare import mcnemar_worse
from .compare import bindings_by_evaluator, check_comparable, evaluator_side

FINISHED = (ExperimentStatus.COMPLETED,)

# The defaults of the API and of `assay gate`; the gate's text states the ones it used.
DEFAULT_ALPHA = 0.05
DEFAULT_MAX_DROP = 0.0
# a run more than half unknown has measured too little to vouch for anything
DEFAULT_MAX_UNKNOWN_RATE = 0.5
# the smallest sample the project draws an interval from (the interval settings' min_sample)
DEFAULT_MIN_DECIDED = 30
MINUS = "\u2212"  # the one minus sign of every printed number (never a hyphen)


@dataclass
class GateEvaluator:
    evaluator: str
    baseline_version: str
    candidate_version: str
    n_paired: int
    n_decided: int
    regressions: int
    improvements: int
    pass_rate_baseline: float | None
    pass_rate_candidate: float | None
    pass_rate_delta: float | None
    pass_rate_delta_ci: list[float] | None
    p_worse: float
    unknown_rate: float | None
    unknown_rate_baseline: float | None
    to_unknown: int
    from_unknown: int
    p_more_unknown: float
    failed: bool
    reasons: list[str] = field(default_factory=list)


@dataclass
class GateResult:
    passed: bool
    baseline: dict
    candidate: dict
    alpha: float
    max_drop: float
    max_unknown_rate: float
    min_decided: int
    evaluators: list[GateEvaluator]
    not_compared: list[str]
    reasons: list[str] = field(default_factory=list)  # the gate's own, beyond its evaluators'

    def to_dict(self) -> dict:
        data = asdict(self)
        data["markdown"] = gate_markdown(self)
        return data


@dataclass(frozen=True)
class _Options:
    alpha: float
    max_drop: float
    max_unknown_rate: float
    min_decided: int
    seed: int


def gate_check(
    *,
    baseline: Experiment,
    candidate: Experiment,
    alpha: float = DEFAULT_ALPHA,
    max_drop: float = DEFAULT_MAX_DROP,
    max_unknown_rate: float = DEFAULT_MAX_UNKNOWN_RATE,
    min_decided: int = DEFAULT_MIN_DECIDED,
    seed: int = 0,
) -> GateResult:
    """The gate's decision for `candidate` against `baseline`, evaluator by evaluator; it
    fails when any evaluator fails or when no evaluator ran in both runs."""
    options = _Options(alpha, max_drop, max_unknown_rate, min_decided, seed)
    _check_options(options)
    _check_runs(baseline, candidate)
    base_bindings, cand_bindings = bindings_by_evaluator(baseline), bindings_by_evaluator(candidate)
    shared = [e for e in base_bindings if e in cand_bindings]
    rows = [
        _evaluator(baseline, base_bindings[e], candidate, cand_bindings[e], options) for e in shared
    ]
    missing = [
        b.evaluator_version.evaluator.name
        for bindings in (base_bindings, cand_bindings)
        for e, b in bindings.items()
        if e not in shared
    ]
    reasons = [] if rows else [nothing_compared()]
    return GateResult(
        passed=not reasons and not any(r.failed for r in rows),
        baseline=_run(baseline),
        candidate=_run(candidate),
        alpha=alpha,
        max_drop=max_drop,
        max_unknown_rate=max_unknown_rate,
        min_decided=min_decided,
        evaluators=rows,
        not_compared=missing,
        reasons=reasons,
    )


def _check_runs(baseline: Experiment, candidate: Experiment) -> None:
    check_comparable(baseline.workspace, baseline, [candidate])
    for side, run in (("baseline", baseline), ("candidate", candidate)):
        if run.status not in FINISHED:
            raise ValidationError(
                {
                    side: _("%(name)r is %(status)s; gate completed runs.")
                    % {"name": run.name, "status": run.status}
                }
            )


def _evaluator(baseline, base, candidate, cand, options: _Options) -> GateEvaluator:
    stats = compare_paired(
        evaluator_side(baseline, base),
        evaluator_side(candidate, cand),
        confidence=1 - 2 * options.alpha,
        seed=options.seed,
    )
    ci = stats.pass_rate_delta_ci
    row = GateEvaluator(
        evaluator=base.evaluator_version.evaluator.name,
        baseline_version=base.evaluator_version.version,
        candidate_version=cand.evaluator_version.version,
        n_paired=stats.n_paired,
        n_decided=stats.n_decided,
        regressions=len(stats.regressions),
        improvements=len(stats.improvements),
        pass_rate_baseline=stats.pass_rate_baseline,
        pass_rate_candidate=stats.pass_rate_candidate,
        pass_rate_delta=stats.pass_rate_delta,
        pass_rate_delta_ci=list(ci) if ci is not None else None,
        p_worse=mcnemar_worse(len(stats.regressions), len(stats.improvements)),
        unknown_rate=_unknown_rate(candidate, cand),
        unknown_rate_baseline=_unknown_rate(baseline, base),
        to_unknown=len(stats.to_unknown),
        from_unknown=len(stats.from_unknown),
        p_more_unknown=mcnemar_worse(len(stats.to_unknown), len(stats.from_unknown)),
        failed=False,
    )
    row.reasons = _reasons(row, options)
    row.failed = bool(row.reasons)
    return row


def _reasons(row: GateEvaluator, options: _Options) -> list[str]:
    """Why an evaluator fails the gate, one sentence per test it fails (none: it passes)."""
    reasons = []
    if pass_rate_dropped(row, alpha=options.alpha, max_drop=options.max_drop):
        reasons.append(_dropped(row, options))
    if row.p_more_unknown < options.alpha:
        reasons.append(_more_unknown(row))
    if row.unknown_rate is not None and row.unknown_rate > options.max_unknown_rate:
        reasons.append(
            _("unknown rate %(rate)s above %(limit)s")
            % {"rate": _rate(row.unknown_rate), "limit": _rate(options.max_unknown_rate)}
        )
    if row.n_decided < options.min_decided:
        reasons.append(
            _("only %(n)d rows decided on both sides, fewer than %(min)d")
            % {"n": row.n_decided, "min": options.min_decided}
        )
    return reasons


def pass_rate_dropped(row: GateEvaluator, *, alpha: float, max_drop: float) -> bool:
    """The gate's regression test: the one-sided McNemar p below alpha and the whole interval
    of the difference below −max_drop (schedules name a regression by the same test)."""
    ci = row.pass_rate_delta_ci
    return row.p_worse < alpha and ci is not None and ci[1] < -max_drop


def evaluator_reasons(
    row: dict,
    *,
    alpha: float = DEFAULT_ALPHA,
    max_drop: float = DEFAULT_MAX_DROP,
    max_unknown_rate: float = DEFAULT_MAX_UNKNOWN_RATE,
    min_decided: int = DEFAULT_MIN_DECIDED,
) -> list[str]:
    """Why a stored gate row (`asdict(GateEvaluator)`) fails at these options (the defaults:
    schedules'), worded in the active language: pages store the numbers and word them for
    each reader."""
    options = _Options(alpha, max_drop, max_unknown_rate, min_decided, 0)
    return _reasons(GateEvaluator(**row), options)


def nothing_compared() -> str:
    """The gate's own reason, in the active language."""
    return _("no evaluator ran in both runs, so nothing was compared")


def decision_reasons(decision: GateDecision) -> list[str]:
    """A recorded check's reasons worded in the active language from the rows it stored: the
    gate's own, then "<evaluator>: <why>" per failing evaluator (the stored sentences for a
    check recorded before the rows were kept)."""
    if decision.passed:
        return []
    if decision.failing is None:
        return list(decision.reasons)
    if not decision.failing:  # no evaluator failed, yet the gate did: it compared nothing
        return [nothing_compared()]
    options = {
        "alpha": decision.alpha,
        "max_drop": decision.max_drop,
        "max_unknown_rate": decision.max_unknown_rate,
        "min_decided": decision.min_decided,
    }
    return [
        f"{row['evaluator']}: {'; '.join(evaluator_reasons(row, **options))}"
        for row in decision.failing
    ]


def drop_summary(row: GateEvaluator) -> str:
    """A dropped pass rate as one phrase: "−8.1 pts [−11.0, −5.2], p < 0.001"."""
    low, high = row.pass_rate_delta_ci
    interval = f"[{_signed(low, unit='')}, {_signed(high, unit='')}]"
    return f"{_signed(row.pass_rate_delta)} {interval}, {_p(row.p_worse)}"


def _dropped(row: GateEvaluator, options: _Options) -> str:
    return _(
        "pass rate dropped %(drop)s (%(p)s; the difference is at most %(bound)s, below %(limit)s)"
    ) % {
        "drop": _points(-row.pass_rate_delta),
        "p": _p(row.p_worse),
        "bound": _signed(row.pass_rate_delta_ci[1]),
        "limit": _signed(-options.max_drop),
    }


def _more_unknown(row: GateEvaluator) -> str:
    return _(
        "unknown rate rose from %(base)s to %(cand)s (%(to)d rows became unknown, %(back)d "
        "became decided; %(p)s)"
    ) % {
        "base": _rate(row.unknown_rate_baseline),
        "cand": _rate(row.unknown_rate),
        "to": row.to_unknown,
        "back": row.from_unknown,
        "p": _p(row.p_more_unknown),
    }


def _unknown_rate(experiment: Experiment, binding) -> float | None:
    """The share of the run's rows whose final verdict (a correction wins) is unknown."""
    rows = Result.objects.filter(experiment=experiment, binding=binding)
    unknown = Q(human_verdict=Verdict.UNKNOWN) | Q(human_verdict="", verdict=Verdict.UNKNOWN)
    counts = rows.aggregate(total=Count("id"), unknown=Count("id", filter=unknown))
    return counts["unknown"] / counts["total"] if counts["total"] else None


def _check_options(options: _Options) -> None:
    errors = {}
    if not 0 < options.alpha < 0.5:
        errors["alpha"] = [_("alpha is a significance level between 0 and 0.5 (e.g. 0.05).")]
    if not 0 <= options.max_drop < 1:
        errors["max_drop"] = [_("max_drop is a pass-rate drop in [0, 1) (e.g. 0.02 for 2 points).")]
    if not 0 <= options.max_unknown_rate <= 1:
        errors["max_unknown_rate"] = [_("max_unknown_rate is a share in [0, 1].")]
    if options.min_decided < 0:
        errors["min_decided"] = [_("min_decided is a number of rows, 0 or more.")]
    if errors:
        raise ValidationError(errors)


def _run(experiment: Experiment) -> dict:
    return {"id": str(experiment.public_id), "name": experiment.name}


def gate_markdown(result: GateResult) -> str:
    """The gate as a Markdown summary (what the CLI writes to $GITHUB_STEP_SUMMARY)."""
    head = _("✅ Assay gate passed") if result.passed else _("❌ Assay gate failed")
    lines = [
        f"### {head}",
        "",
        _("Candidate **%(candidate)s** against baseline **%(baseline)s** (%(limits)s).")
        % {
            "candidate": _md(result.candidate["name"]),
            "baseline": _md(result.baseline["name"]),
            "limits": gate_limits(result),
        },
        "",
        "| evaluator | decided | baseline | candidate | Δ pass rate | CI | p (worse) "
        "| unknown | p (more unknown) | result |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *(_markdown_row(row) for row in result.evaluators),
    ]
    if result.reasons:  # a blank line first: a line right under a table would be its row
        lines += ["", *(f"**{_md(reason)}**" for reason in result.reasons)]
    if result.not_compared:
        names = _md(", ".join(result.not_compared))
        lines += ["", _("Not compared (on one side only): %(names)s.") % {"names": names}]
    return "\n".join(lines) + "\n"


def gate_limits(result: GateResult) -> str:
    """The options the gate decided with, as its text states them."""
    return _(
        "alpha %(alpha)s, max drop %(drop)s pts, max unknown rate %(unknown)s, "
        "min decided %(decided)d rows"
    ) % {
        "alpha": f"{result.alpha:g}",
        "drop": f"{100 * result.max_drop:g}",
        "unknown": _rate(result.max_unknown_rate),
        "decided": result.min_decided,
    }


def _markdown_row(row: GateEvaluator) -> str:
    ci = row.pass_rate_delta_ci
    cells = [
        _md(row.evaluator),
        str(row.n_decided),
        _rate(row.pass_rate_baseline),
        _rate(row.pass_rate_candidate),
        _signed(row.pass_rate_delta),
        "—" if ci is None else f"[{_signed(ci[0])}, {_signed(ci[1])}]",
        _p(row.p_worse, bare=True),
        f"{_rate(row.unknown_rate_baseline)} → {_rate(row.unknown_rate)}",
        _p(row.p_more_unknown, bare=True),
        "fail: " + _md("; ".join(row.reasons)) if row.failed else "pass",
    ]
    return "| " + " | ".join(cells) + " |"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _points(value: float) -> str:
    return f"{100 * value:.1f} pts"


def _signed(value: float | None, *, unit: str = " pts") -> str:
    """A difference in signed points with U+2212 for minus; what rounds to zero has no sign."""
    if value is None:
        return "—"
    shown = f"{abs(100 * value):.1f}"
    if shown == "0.0":
        return f"0.0{unit}"
    return f"{'+' if value > 0 else MINUS}{shown}{unit}"


def _p(value: float, *, bare: bool = False) -> str:
    """A p-value as "p = 0.0193", or "p < 0.001" (no exponent, whose minus would be a hyphen)."""
    text = "< 0.001" if value < 0.001 else f"{value:.3g}"
    if bare:
        return text
    return f"p {text}" if value < 0.001 else f"p = {text}"


def _md(text: str) -> str:
    """Untrusted names in a Markdown table: no pipes, no HTML, no line breaks."""
    return (
        str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")
    )
