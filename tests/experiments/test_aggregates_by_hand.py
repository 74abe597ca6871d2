"""The stored aggregates of hand-made experiments, checked key by key against numbers worked
out by hand: counts, rates, moments, histogram, tags, statuses, usage and corrections, and the
intervals fed the right rows in the right order (the dashboard's numbers must not move when
the way they are computed does). Runs on PostgreSQL and on SQLite alike.

The results are written directly, in a shuffled order: the aggregates must read them in row
order whatever order they were stored in."""

from __future__ import annotations

import random

import numpy as np
import pytest

from experiments import services
from experiments.models import Result
from experiments.results.aggregates import aggregates_refresh, reads
from experiments.stats import bootstrap_ci, mean_ci
from experiments.stats.clustered import clustered_mean_ci, clustered_rate_ci
from experiments.stats.interval_settings import interval_settings
from tests.support.factories import make_code_version, make_evalset_version, qa_rows

pytestmark = pytest.mark.django_db

# small samples get intervals, and the test stays quick
INTERVAL = {"iterations": 1000, "min_sample": 1, "seed": 3}
RESAMPLING = {"iterations": 1000, "confidence": 0.95, "min_sample": 1, "seed": 3}
SUMMARY_KEYS = {
    "passed",
    "fails",
    "nones",
    "total_evaluated",
    "total_processed",
    "pass_rate",
    "fail_rate",
    "mean",
    "std",
    "histogram",
    "tags",
    "line",
    "fail_rate_ci",
    "mean_ci",
    "tag_fail_rate_ci",
    "interval_settings",
    "confidence",
    "statuses",
    "calibration",
    "usage",
    "corrected",
}
NO_CALIBRATION = {"sensitivity": 1.0, "specificity": 1.0, "applied": False}

# one row per item: (status, score, verdict, human verdict, human score, tags, latency,
# tokens in, tokens out, cost)
ROWS = [
    ("success", 1.0, "pass", "", None, ["geo"], 10.0, 5, 1, 0.25),
    ("success", 0.0, "fail", "", None, ["geo", "math"], 20.0, 5, 1, None),
    ("success", 0.3, "fail", "pass", 0.8, ["math", "math"], 30.0, 5, 1, 0.5),
    ("error", None, "unknown", "", None, ["geo"], 0.0, 0, 0, None),
    ("success", 0.7, "pass", "fail", None, [], 40.0, 5, 1, 0.125),
    ("success", 0.6, "pass", "", None, ["safety"], 50.0, 5, 1, None),
    ("timeout", None, "unknown", "", None, ["math"], 0.0, 0, 0, None),
]

# two repetitions of four items: (item, repeat, status, score, verdict, human verdict, human
# score, tags)
REPEATED = [
    (0, 0, "success", 1.0, "pass", "", None, ["geo"]),
    (0, 1, "success", 0.9, "pass", "", None, ["geo"]),
    (1, 0, "success", 0.2, "fail", "", None, ["geo", "math"]),
    (1, 1, "success", 0.6, "pass", "", None, ["geo", "math"]),
    (2, 0, "success", 0.0, "fail", "", None, ["math"]),
    (2, 1, "error", None, "unknown", "", None, ["math"]),
    (3, 0, "success", 0.1, "fail", "pass", 0.9, []),
    (3, 1, "success", 0.4, "fail", "", None, []),
]


def experiment_of(workspace, user, items: int, *, repetitions: int = 1):
    version = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(items))
    check = make_code_version(workspace=workspace, user=user)
    experiment = services.experiment_create(
        workspace=workspace,
        user=user,
        name="by hand",
        evalset_version=version,
        bindings=[{"evaluator_version": check}],
        repetitions=repetitions,
        interval=INTERVAL,
    )
    items = list(version.items.order_by("position"))
    return experiment, experiment.bindings.get(), items


def write(experiment, binding, results: list[Result]) -> None:
    random.Random(7).shuffle(results)
    Result.objects.bulk_create(results)
    aggregates_refresh(experiment=experiment)


def result(experiment, binding, item, **fields) -> Result:
    return Result(
        experiment=experiment,
        binding=binding,
        item=item,
        position=item.position,
        **fields,
    )


@pytest.fixture
def plain(workspace, user):
    experiment, binding, items = experiment_of(workspace, user, len(ROWS))
    results = []
    for item, row in zip(items, ROWS, strict=True):
        status, score, verdict, human, human_score, tags, latency, t_in, t_out, cost = row
        results.append(
            result(
                experiment,
                binding,
                item,
                status=status,
                score=score,
                verdict=verdict,
                human_verdict=human,
                human_score=human_score,
                tags=tags,
                latency_ms=latency,
                tokens_in=t_in,
                tokens_out=t_out,
                cost=cost,
            )
        )
    write(experiment, binding, results)
    return experiment


def test_one_row_per_item_summary_key_by_key(plain):
    summary = plain.aggregates.get().summary
    assert set(summary) == SUMMARY_KEYS
    # verdicts after corrections: pass, fail, pass (human), unknown, fail (human), pass, unknown
    assert (summary["passed"], summary["fails"], summary["nones"]) == (3, 2, 2)
    assert (summary["total_evaluated"], summary["total_processed"]) == (5, 7)
    assert (summary["pass_rate"], summary["fail_rate"]) == (0.6, 0.4)
    assert summary["line"] == "3 pass, 2 fail, 2 unknown"
    # scores after corrections, in row order: the human's 0.8 replaces 0.3; a verdict-only
    # correction keeps the evaluator's 0.7
    scores = [1.0, 0.0, 0.8, 0.7, 0.6]
    assert summary["mean"] == pytest.approx(3.1 / 5)
    assert summary["std"] == pytest.approx((0.568 / 5) ** 0.5)
    # numpy's edges: 0.6 and 0.7 fall just below 0.6000000000000001 and 0.7000000000000001
    assert summary["histogram"]["counts"] == [1, 0, 0, 0, 0, 1, 1, 0, 1, 1]
    assert summary["histogram"]["edges"] == [float(e) for e in np.linspace(0, 1, 11)]
    assert summary["tags"] == {
        "geo": {"passed": 1, "fails": 1, "total_evaluated": 2, "nones": 1},
        "math": {"passed": 1, "fails": 1, "total_evaluated": 2, "nones": 1},
        "safety": {"passed": 1, "fails": 0, "total_evaluated": 1, "nones": 0},
    }
    assert summary["statuses"] == {"success": 5, "error": 1, "timeout": 1}
    assert summary["corrected"] == 2
    assert summary["calibration"] == NO_CALIBRATION
    assert summary["interval_settings"] == interval_settings(INTERVAL)
    assert summary["confidence"] == 0.95
    assert summary["usage"] == {
        "rows": 7,
        "latency_ms": {"p50": 30.0, "p95": pytest.approx(48.0), "max": 50.0},
        "tokens_in": 25,
        "tokens_out": 5,
        "cost": 0.875,
        "priced_rows": 3,
    }
    assert summary["fail_rate_ci"] == list(bootstrap_ci(2, 3, **RESAMPLING))
    assert summary["mean_ci"] == list(mean_ci(scores, **RESAMPLING))
    assert summary["tag_fail_rate_ci"] == {
        "geo": list(bootstrap_ci(1, 1, **RESAMPLING)),
        "math": list(bootstrap_ci(1, 1, **RESAMPLING)),
        "safety": list(bootstrap_ci(0, 1, **RESAMPLING)),
    }


@pytest.fixture
def repeated(workspace, user):
    experiment, binding, items = experiment_of(workspace, user, 4, repetitions=2)
    results = []
    for index, repeat, status, score, verdict, human, human_score, tags in REPEATED:
        results.append(
            result(
                experiment,
                binding,
                items[index],
                repeat=repeat,
                status=status,
                score=score,
                verdict=verdict,
                human_verdict=human,
                human_score=human_score,
                tags=tags,
                latency_ms=1.0 + index,
            )
        )
    write(experiment, binding, results)
    return experiment


def test_repetitions_summary_key_by_key(repeated):
    # each row's tag list is read as its jsonb hash on PostgreSQL, as its text on SQLite
    summary = repeated.aggregates.get().summary
    assert set(summary) == SUMMARY_KEYS | {"interval", "repetitions"}
    assert (summary["passed"], summary["fails"], summary["nones"]) == (4, 3, 1)
    assert summary["mean"] == pytest.approx((1.0 + 0.9 + 0.2 + 0.6 + 0.0 + 0.9 + 0.4) / 7)
    assert summary["tags"] == {
        "geo": {"passed": 3, "fails": 1, "total_evaluated": 4, "nones": 0},
        "math": {"passed": 1, "fails": 2, "total_evaluated": 3, "nones": 1},
    }
    assert summary["statuses"] == {"success": 7, "error": 1}
    assert summary["corrected"] == 1
    assert summary["interval"] == "clustered by item"
    assert summary["repetitions"] == {
        "k": 2,
        "items": 4,
        "pass_at_k": 0.75,  # items 0, 1 and 3 passed at least once
        "pass_at_k_items": 4,
        "pass_all_k": 1 / 3,  # of the items with both repetitions decided, item 0
        "pass_all_k_items": 3,
        "item_pass_share_mean": 0.5,  # (1 + 1/2 + 0 + 1/2) / 4
        "item_mean_score": pytest.approx((0.95 + 0.4 + 0.0 + 0.65) / 4),
    }
    usage = summary["usage"]
    assert (usage["rows"], usage["latency_ms"]["max"], usage["cost"]) == (8, 4.0, None)
    # per item, in row order: fails, decided rows, score sums, scored rows
    fails, decided = [0, 1, 1, 1], [2, 2, 1, 2]
    sums, scored = [1.0 + 0.9, 0.2 + 0.6, 0.0, 0.9 + 0.4], [2, 2, 1, 2]
    assert summary["fail_rate_ci"] == list(clustered_rate_ci(fails, decided, **RESAMPLING))
    assert summary["mean_ci"] == list(clustered_mean_ci(sums, scored, **RESAMPLING))
    assert summary["tag_fail_rate_ci"] == {
        "geo": list(clustered_rate_ci([0, 1], [2, 2], **RESAMPLING)),
        "math": list(clustered_rate_ci([1, 1], [2, 1], **RESAMPLING)),
    }


def test_a_correction_refreshes_the_numbers(plain, user):
    binding = plain.bindings.get()
    unknown = Result.objects.get(experiment=plain, status="timeout")
    services.result_correct(result=unknown, user=user, verdict="fail", note="it hung: a fail")
    summary = binding.aggregate.__class__.objects.get(binding=binding).summary
    assert (summary["passed"], summary["fails"], summary["nones"]) == (3, 3, 1)
    assert summary["tags"]["math"] == {"passed": 1, "fails": 2, "total_evaluated": 3, "nones": 0}
    assert summary["corrected"] == 3


def test_rows_are_read_into_compact_arrays(repeated):
    results = Result.objects.filter(experiment=repeated)
    columns = reads.result_columns(results, clustered=True)
    assert [a.dtype for a in (columns.scores, columns.latencies, columns.costs)] == [np.float64] * 3
    assert (columns.codes.dtype, columns.items.dtype) == (np.int8, np.int32)
    assert columns.items.tolist() == [0, 0, 1, 1, 2, 2, 3, 3]  # row order, not storage order
    assert columns.codes.tolist() == [0, 0, 1, 0, 1, 2, 0, 1]
    assert columns.counts.tolist() == [4, 3, 1]
