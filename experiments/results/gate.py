"""The CI gate: does a candidate run regress against a baseline, honestly?

An evaluator fails the gate when its pass rate dropped significantly — the exact one-sided
McNemar test on the paired rows is below `alpha` AND the paired bootstrap interval of the
difference (at 1 − 2·alpha, i.e. a one-sided 1 − alpha bound) lies entirely below −max_drop —
or when the candidate's unknown rate exceeds `max_unknown_rate`. Noise (a few flips either
way) passes; a real regression fails with the numbers that show it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from django.core.exceptions import ValidationError
from django.db.models import Count, Q
from django.utils.translation import gettext as _

from assay.vocabulary import Verdict

from ..models import Experiment, ExperimentStatus, Result
from ..stats import compare_paired
from ..stats.compare import mcnemar_worse
from .compare import bindings_by_evaluator, check_comparable, evaluator_side

FINISHED = (ExperimentStatus.COMPLETED,)


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
    failed: bool
    reasons: list[str] = field(default_factory=list)


@dataclass
class GateResult:
    passed: bool
    baseline: dict
    candidate: dict
    alpha: float
    max_drop: float
    max_unknown_rate: float | None
    evaluators: list[GateEvaluator]
    not_compared: list[str]

    def to_dict(self) -> dict:
        data = asdict(self)
        data["markdown"] = gate_markdown(self)
        return data


def gate_check(
    *,
    baseline: Experiment,
    candidate: Experiment,
    alpha: float = 0.05,
    max_drop: float = 0.0,
    max_unknown_rate: float | None = None,
    seed: int = 0,
) -> GateResult:
    """The gate's decision for `candidate` against `baseline`, evaluator by evaluator."""
    _check_options(alpha, max_drop, max_unknown_rate)
    check_comparable(baseline.workspace, baseline, [candidate])
    for side, run in (("baseline", baseline), ("candidate", candidate)):
        if run.status not in FINISHED:
            raise ValidationError(
                {
                    side: _("%(name)r is %(status)s; gate completed runs.")
                    % {"name": run.name, "status": run.status}
                }
            )
    base_bindings, cand_bindings = bindings_by_evaluator(baseline), bindings_by_evaluator(candidate)
    rows, missing = [], []
    for evaluator_id, base in base_bindings.items():
        cand = cand_bindings.get(evaluator_id)
        if cand is None:
            missing.append(base.evaluator_version.evaluator.name)
            continue
        rows.append(
            _evaluator(baseline, base, candidate, cand, alpha, max_drop, max_unknown_rate, seed)
        )
    missing += [
        b.evaluator_version.evaluator.name
        for e, b in cand_bindings.items()
        if e not in base_bindings
    ]
    return GateResult(
        passed=not any(r.failed for r in rows),
        baseline=_run(baseline),
        candidate=_run(candidate),
        alpha=alpha,
        max_drop=max_drop,
        max_unknown_rate=max_unknown_rate,
        evaluators=rows,
        not_compared=missing,
    )


def _evaluator(baseline, base, candidate, cand, alpha, max_drop, max_unknown, seed):
    stats = compare_paired(
        evaluator_side(baseline, base),
        evaluator_side(candidate, cand),
        confidence=1 - 2 * alpha,
        seed=seed,
    )
    regressions, improvements = len(stats.regressions), len(stats.improvements)
    p_worse = mcnemar_worse(regressions, improvements)
    unknown_rate = _unknown_rate(candidate, cand)
    reasons = []
    ci = stats.pass_rate_delta_ci
    if p_worse < alpha and ci is not None and ci[1] < -max_drop:
        reasons.append(
            f"pass rate dropped {_points(-stats.pass_rate_delta)} (p = {p_worse:.3g}; the "
            f"difference is at most {_signed(ci[1])}, below −{_points(max_drop)})"
        )
    if max_unknown is not None and unknown_rate is not None and unknown_rate > max_unknown:
        reasons.append(f"unknown rate {_rate(unknown_rate)} above {_rate(max_unknown)}")
    return GateEvaluator(
        evaluator=base.evaluator_version.evaluator.name,
        baseline_version=base.evaluator_version.version,
        candidate_version=cand.evaluator_version.version,
        n_paired=stats.n_paired,
        n_decided=stats.n_decided,
        regressions=regressions,
        improvements=improvements,
        pass_rate_baseline=stats.pass_rate_baseline,
        pass_rate_candidate=stats.pass_rate_candidate,
        pass_rate_delta=stats.pass_rate_delta,
        pass_rate_delta_ci=list(ci) if ci is not None else None,
        p_worse=p_worse,
        unknown_rate=unknown_rate,
        failed=bool(reasons),
        reasons=reasons,
    )


def _unknown_rate(experiment: Experiment, binding) -> float | None:
    """The share of the candidate's rows whose final verdict (a correction wins) is unknown."""
    rows = Result.objects.filter(experiment=experiment, binding=binding)
    unknown = Q(human_verdict=Verdict.UNKNOWN) | Q(human_verdict="", verdict=Verdict.UNKNOWN)
    counts = rows.aggregate(total=Count("id"), unknown=Count("id", filter=unknown))
    return counts["unknown"] / counts["total"] if counts["total"] else None


def _check_options(alpha, max_drop, max_unknown_rate) -> None:
    errors = {}
    if not 0 < alpha < 0.5:
        errors["alpha"] = [_("alpha is a significance level between 0 and 0.5 (e.g. 0.05).")]
    if not 0 <= max_drop < 1:
        errors["max_drop"] = [_("max_drop is a pass-rate drop in [0, 1) (e.g. 0.02 for 2 points).")]
    if max_unknown_rate is not None and not 0 <= max_unknown_rate <= 1:
        errors["max_unknown_rate"] = [_("max_unknown_rate is a share in [0, 1].")]
    if errors:
        raise ValidationError(errors)


def _run(experiment: Experiment) -> dict:
    return {"id": str(experiment.public_id), "name": experiment.name}


def _points(value: float) -> str:
    return f"{100 * value:.1f} pts"


def gate_markdown(result: GateResult) -> str:
    """The gate as a Markdown summary (what the CLI writes to $GITHUB_STEP_SUMMARY)."""
    head = "✅ Assay gate passed" if result.passed else "❌ Assay gate failed"
    lines = [
        f"### {head}",
        "",
        f"Candidate **{_md(result.candidate['name'])}** against baseline "
        f"**{_md(result.baseline['name'])}** (alpha {result.alpha:g}, "
        f"max drop {100 * result.max_drop:g} pts).",
        "",
        "| evaluator | baseline | candidate | Δ pass rate | CI | p (worse) | unknown | result |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in result.evaluators:
        ci = row.pass_rate_delta_ci
        lines.append(
            f"| {_md(row.evaluator)} | {_rate(row.pass_rate_baseline)} | "
            f"{_rate(row.pass_rate_candidate)} | {_signed(row.pass_rate_delta)} | "
            f"{'—' if ci is None else f'[{_signed(ci[0])}, {_signed(ci[1])}]'} | "
            f"{row.p_worse:.3g} | {_rate(row.unknown_rate)} | "
            f"{'fail: ' + _md('; '.join(row.reasons)) if row.failed else 'pass'} |"
        )
    if result.not_compared:
        lines += ["", f"Not compared (on one side only): {_md(', '.join(result.not_compared))}."]
    return "\n".join(lines) + "\n"


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def _signed(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:+.1f} pts"


def _md(text: str) -> str:
    """Untrusted names in a Markdown table: no pipes, no HTML, no line breaks."""
    return (
        str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")
    )
