"""Judge calibration: compare an evaluator's verdicts with human verdicts on the same items."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from assay.vocabulary import Verdict
from evalsets.models import EvalSetItem

from ..models import EvaluatorBinding, Experiment, JudgeCalibration, Result
from ..stats.agreement import cohen_kappa

P, F = Verdict.PASS.value, Verdict.FAIL.value
# (judge, human) → confusion cell; a fail is the positive class (the harm or error detected)
CELLS = {(F, F): "tp", (P, F): "fn", (F, P): "fp", (P, P): "tn"}


def confusion_counts(pairs: list[tuple[str, str]]) -> dict:
    """(judge verdict, human verdict) pairs → counts; a fail is the positive class."""
    counts = {"tp": 0, "fn": 0, "fp": 0, "tn": 0, "judge_unknown": 0, "human_unknown": 0}
    for judge, human in pairs:
        if human not in (P, F):
            counts["human_unknown"] += 1
        elif judge not in (P, F):
            counts["judge_unknown"] += 1
        else:
            counts[CELLS[(judge, human)]] += 1
    return counts


def agreement_metrics(counts: dict) -> dict:
    """Agreement, sensitivity, specificity and Cohen's kappa (None where undefined)."""
    tp, fn, fp, tn = counts["tp"], counts["fn"], counts["fp"], counts["tn"]
    n = tp + fn + fp + tn
    if n == 0:
        return {"n": 0, "agreement": None, "sensitivity": None, "specificity": None, "kappa": None}
    return {
        "n": n,
        "agreement": (tp + tn) / n,
        "sensitivity": tp / (tp + fn) if tp + fn else None,
        "specificity": tn / (tn + fp) if tn + fp else None,
        # rows: the judge's fail / pass, columns: the human's (the reviewers' kappa, too)
        "kappa": cohen_kappa([[tp, fp], [fn, tn]]),
    }


def calibrations_record(*, experiment: Experiment) -> list[JudgeCalibration]:
    """After a run on items carrying human verdicts, record each evaluator's calibration."""
    labelled = EvalSetItem.objects.filter(version=experiment.evalset_version).exclude(
        human_verdict=""
    )
    humans = dict(labelled.values_list("pk", "human_verdict"))
    if not humans:
        return []
    recorded = []
    for binding in experiment.bindings.select_related("evaluator_version"):
        if binding.per_turn:
            continue  # an item's human verdict is about the row, not about one of its turns
        rows = Result.objects.filter(
            experiment=experiment, binding=binding, item_id__in=list(humans)
        ).values_list("item_id", "verdict")
        counts = confusion_counts([(verdict, humans[item]) for item, verdict in rows])
        metrics = agreement_metrics(counts)
        calibration, _ = JudgeCalibration.objects.update_or_create(
            binding=binding,
            defaults={
                "evaluator_version": binding.evaluator_version,
                "experiment": experiment,
                "confusion": counts,
                **metrics,
            },
        )
        recorded.append(calibration)
    return recorded


def gold_calibrations_replace(
    *, source_key: str, pairs: dict, labels: dict
) -> list[JudgeCalibration]:
    """Record, per evaluator version, its calibration against one source of gold labels (an
    annotation queue's score config): `pairs` maps a version to its (judge verdict, human
    verdict) pairs. The source's calibrations of versions no longer in `pairs` go. A refreshed
    calibration is the newest of its version, as a new labelled run's would be."""
    recorded = []
    with transaction.atomic():
        gold = JudgeCalibration.objects.filter(source=JudgeCalibration.Source.GOLD)
        gold.filter(source_key=source_key).exclude(evaluator_version__in=list(pairs)).delete()
        for version, found in pairs.items():
            counts = confusion_counts(found)
            calibration, _ = JudgeCalibration.objects.update_or_create(
                evaluator_version=version,
                source=JudgeCalibration.Source.GOLD,
                source_key=source_key,
                defaults={"confusion": counts, "labels": labels, "created_at": timezone.now()}
                | agreement_metrics(counts),
            )
            recorded.append(calibration)
    return recorded


def gold_calibrations_drop(*, source_prefix: str, keep: set[str] = frozenset()) -> None:
    """Drop the gold calibrations whose source starts with `source_prefix` (an annotation
    queue's), except those of the sources in `keep`: their labels no longer judge."""
    gold = JudgeCalibration.objects.filter(
        source=JudgeCalibration.Source.GOLD, source_key__startswith=source_prefix
    )
    gold.exclude(source_key__in=keep).delete()


def calibration_for(binding: EvaluatorBinding) -> JudgeCalibration | None:
    """The newest usable calibration of the binding's evaluator version from another run, or
    from gold labels (which may include this run's rows: reviewers judged them, not the
    evaluator)."""
    candidates = JudgeCalibration.objects.filter(
        evaluator_version_id=binding.evaluator_version_id
    ).exclude(experiment_id=binding.experiment_id)
    return next((c for c in candidates if c.usable), None)
