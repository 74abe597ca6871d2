"""Trends: each evaluator's pass rate across the completed runs on one evalset, with the interval
each run stored and the regressions McNemar finds between an evaluator's consecutive runs.

Reads are bounded by the window (at most `RUN_CAP` runs): one query for the runs, one for their
bindings with the stored aggregates, one for the stored flips of consecutive pairs, and, for a
pair not counted since its aggregates were refreshed, one that pairs the two runs' rows by
(item, repetition) inside the database and returns only counts (then stored).
"""

from __future__ import annotations

from django.db import connection
from django.db.models import Q

from assay.models import Workspace
from assay.vocabulary import Verdict
from evalsets.models import EvalSet, EvalSetItem

from ..models import EvaluatorBinding, Experiment, ExperimentStatus, PairedComparison, Result
from ..stats.compare import SIGNIFICANCE, mcnemar_worse
from ..stats.interval_settings import pass_interval
from .compare.sql import pairing_cursor
from .compare.store import pair_stamp
from .trend_chart import WIDE_WIDTH, chart_layout

RUN_CAP = 20
PASS, FAIL = Verdict.PASS.value, Verdict.FAIL.value  # plain strings for the database driver


def evalset_trends(
    *, workspace: Workspace, evalset: EvalSet, current: Experiment | None = None, cap: int = RUN_CAP
) -> dict:
    """Plain dicts for the trends partial: the window's runs (oldest first), one series per
    evaluator with its points and chart, and whether there are enough runs to draw one.

    `current` (the experiment page's run) is highlighted; when it is older than the newest `cap`
    runs the window ends at it instead, so its own page always shows it.
    """
    runs = _window(workspace, evalset, current, cap)
    run_rows = [_run_row(run, current) for run in runs]
    series = _series(runs, current) if len(runs) >= 2 else []
    for line in series:
        _mark_regressions(line["points"])
        line["regressions"] = sum(p["regression"] for p in line["points"])
        line["chart"] = chart_layout(runs=run_rows, points=line["points"])
        line["chart_wide"] = chart_layout(runs=run_rows, points=line["points"], width=WIDE_WIDTH)
    return {
        "runs": run_rows,
        "series": series,
        "enough": len(runs) >= 2,
        "threshold": SIGNIFICANCE,
        "cap": cap,
        "confidence": _confidence(series),
        "current_pending": current is not None and current.status != ExperimentStatus.COMPLETED,
    }


def _window(workspace, evalset, current, cap: int) -> list[Experiment]:
    """The newest `cap` completed runs on the evalset (any version) by finish time, oldest first."""
    if evalset.workspace_id != workspace.pk:
        return []
    done = Experiment.objects.filter(
        workspace=workspace, evalset_version__evalset=evalset, status=ExperimentStatus.COMPLETED
    ).select_related("evalset_version")
    newest = done.order_by("-finished_at", "-pk")
    runs = list(newest[:cap])
    if current is not None and current.status == ExperimentStatus.COMPLETED:
        if all(run.pk != current.pk for run in runs):
            runs = list(newest.filter(_until(current))[:cap])
    return runs[::-1]


def _until(run: Experiment) -> Q:
    """Runs that finished no later than `run` (ties broken by id, as the ordering does)."""
    return Q(finished_at__lt=run.finished_at) | Q(finished_at=run.finished_at, pk__lte=run.pk)


def _run_row(run: Experiment, current: Experiment | None) -> dict:
    return {
        "id": str(run.public_id),
        "name": run.name,
        "evalset_version": run.evalset_version.version,
        "finished_at": run.finished_at,
        "current": current is not None and run.pk == current.pk,
    }


def _series(runs: list[Experiment], current: Experiment | None) -> list[dict]:
    """One series per evaluator (any versions), its points in run order; a run that binds an
    evaluator twice (two versions) contributes its first binding by position."""
    index = {run.pk: i for i, run in enumerate(runs)}
    bindings = (
        EvaluatorBinding.objects.filter(experiment__in=runs)
        .select_related("evaluator_version__evaluator", "aggregate")
        .order_by("position", "pk")
    )
    lines: dict[int, dict] = {}
    for binding in bindings:
        evaluator = binding.evaluator_version.evaluator
        line = lines.setdefault(evaluator.pk, _line(evaluator))
        if all(p["run_index"] != index[binding.experiment_id] for p in line["points"]):
            run = runs[index[binding.experiment_id]]
            line["points"].append(_point(binding, run, index[run.pk], current))
    for line in lines.values():
        line["points"].sort(key=lambda p: p["run_index"])
    return sorted(lines.values(), key=lambda line: (line["name"].casefold(), line["evaluator_id"]))


def _line(evaluator) -> dict:
    return {"evaluator_id": evaluator.pk, "name": evaluator.name, "points": []}


def _point(binding: EvaluatorBinding, run: Experiment, index: int, current) -> dict:
    """One run's numbers for one evaluator, from its stored aggregate (None before it has one)."""
    aggregate = getattr(binding, "aggregate", None)
    summary = aggregate.summary if aggregate is not None else {}
    return {
        "run_index": index,
        "run_id": str(run.public_id),
        "run_name": run.name,
        "current": current is not None and run.pk == current.pk,
        "binding_id": binding.pk,
        "version": binding.evaluator_version.version,
        "pass_rate": summary.get("pass_rate"),
        "ci": pass_interval(summary.get("fail_rate_ci")),
        "confidence": summary.get("confidence"),
        "n": summary.get("total_evaluated", 0),
        "refreshed": aggregate.updated_at if aggregate is not None else None,
        "regression": False,
        "p": None,
        "p_shown": "",
        "flips": None,
        "previous": None,
    }


def _mark_regressions(points: list[dict]) -> None:
    """Test each point against the evaluator's previous point: a regression when the exact
    one-sided McNemar p (pass→fail against fail→pass flips) is below the threshold."""
    pairs = list(zip(points, points[1:], strict=False))
    for (before, after), (worse, better, paired) in zip(pairs, _flips(pairs), strict=True):
        after["flips"] = {"worse": worse, "better": better, "paired": paired}
        after["p"] = mcnemar_worse(worse, better)
        after["p_shown"] = p_shown(after["p"])
        after["regression"] = after["p"] < SIGNIFICANCE
        after["previous"] = {"run_id": before["run_id"], "run_name": before["run_name"]}


def _flips(pairs: list[tuple[dict, dict]]) -> list[tuple[int, int, int]]:
    """Each consecutive pair's flips: stored while both aggregates are the ones they were
    counted from (a pair of million-row runs is a join of two million rows), else counted
    now and stored."""
    stored = {
        (row.baseline_id, row.candidate_id): row
        for row in PairedComparison.objects.filter(
            kind=FLIPS,
            baseline_id__in=[before["binding_id"] for before, _after in pairs],
            candidate_id__in=[after["binding_id"] for _before, after in pairs],
        ).defer("rows")
    }
    return [_pair_flips(before, after, stored) for before, after in pairs]


FLIPS = PairedComparison.Kind.FLIPS


def _pair_flips(before: dict, after: dict, stored: dict) -> tuple[int, int, int]:
    key = (before["binding_id"], after["binding_id"])
    stamp = pair_stamp(before["refreshed"], after["refreshed"])
    row = stored.get(key)
    if stamp and row is not None and row.stamp == stamp:
        return tuple(row.stats["flips"])
    found = paired_flips(earlier=key[0], later=key[1])
    if stamp:
        PairedComparison.objects.update_or_create(
            baseline_id=key[0],
            candidate_id=key[1],
            kind=FLIPS,
            defaults={"stamp": stamp, "stats": {"flips": list(found)}},
        )
    return found


def p_shown(p: float) -> str:
    """A p-value as the page prints it: three significant digits, or "p < 0.001"."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3g}"


def paired_flips(*, earlier: int, later: int) -> tuple[int, int, int]:
    """(pass→fail, fail→pass, pairs) between two bindings' rows paired by (item, repetition).

    One query, counted by the database: only the item's id (through the result's item: the
    two runs may pin different versions of the set), repeat and the two verdict columns are
    read (a human correction wins over the evaluator's verdict), never whole rows.
    """
    runs = _runs(earlier, later)
    one_version = runs[earlier][1] == runs[later][1]
    sides = [runs[earlier][0], earlier, runs[later][0], later]
    with pairing_cursor() as cursor:
        cursor.execute(_flips_sql(one_version), [PASS, FAIL, FAIL, PASS, *sides])
        worse, better, paired = cursor.fetchone()
    return int(worse or 0), int(better or 0), int(paired or 0)


def _runs(earlier: int, later: int) -> dict[int, tuple[int, int]]:
    """Each binding's (experiment, evalset version): its results are read by experiment and
    binding (the unique key; no index leads with the binding), and two runs of one version
    pair an item as the same row."""
    bindings = EvaluatorBinding.objects.filter(pk__in=[earlier, later])
    rows = bindings.values_list("pk", "experiment_id", "experiment__evalset_version_id")
    return {pk: (experiment, version) for pk, experiment, version in rows}


def _flips_sql(one_version: bool = False) -> str:
    # Plain SQL because the ORM cannot join a table to itself on non-key columns; CASE sums
    # rather than FILTER so that SQLite (the embedded default) runs it as PostgreSQL does.
    # Two runs of one version pair by the item's row id, without joining a million items
    # twice for their stable ids.
    quote = connection.ops.quote_name
    uid, items = "r.item_id", ""
    if not one_version:
        uid, items = "i.item_id", f"JOIN {quote(EvalSetItem._meta.db_table)} i ON i.id = r.item_id "
    side = (
        f"SELECT {uid} AS uid, r.{quote('repeat')} AS rep, "
        "COALESCE(NULLIF(r.human_verdict, ''), r.verdict) AS v "
        f"FROM {quote(Result._meta.db_table)} r {items}"
        "WHERE r.experiment_id = %s AND r.binding_id = %s"
    )
    return (
        "SELECT SUM(CASE WHEN a.v = %s AND b.v = %s THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN a.v = %s AND b.v = %s THEN 1 ELSE 0 END), COUNT(*) "
        f"FROM ({side}) a JOIN ({side}) b ON a.uid = b.uid AND a.rep = b.rep"
    )


def _confidence(series: list[dict]) -> float | None:
    """The interval level, when every point's interval has the same one (else None)."""
    levels = {p["confidence"] for line in series for p in line["points"] if p["ci"]}
    return levels.pop() if len(levels) == 1 else None
