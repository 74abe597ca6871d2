"""Reads of gold labels for what they teach: the items where an evaluator's verdict and the
gold label disagree (each could become a test case of the evaluator), and the gold items of a
config as rows for an evaluation set. Gold labels themselves: `selectors.gold_labels`."""

from __future__ import annotations

from dataclasses import dataclass

from assay.vocabulary import Verdict
from experiments.models import Result

from ..models import AnnotationQueue, ItemSource, QueueItem, ScoreConfig
from ..services.gold import human_verdict
from . import gold_labels

DECIDED = (Verdict.PASS.value, Verdict.FAIL.value)


@dataclass(frozen=True)
class JudgeMiss:
    """An item whose gold label (a pass or a fail) the evaluator's verdict on its result
    does not match."""

    item: QueueItem
    result: Result
    gold: object
    human: str  # the verdict the gold label means
    judge: str  # the evaluator's own verdict (not a correction)


def verdict_configs(*, queue: AnnotationQueue) -> list[ScoreConfig]:
    """The queue's configs whose labels map to pass and fail (comparable with a judge)."""
    configs = queue.score_configs.exclude(kind="text").order_by("name")
    return [c for c in configs if c.pass_labels or c.fail_labels]


def judge_misses(
    *, queue: AnnotationQueue, config: ScoreConfig, only: QueueItem | None = None
) -> list[JudgeMiss]:
    """Items of experiment results (still stored) whose gold label means a pass or a fail the
    evaluator's verdict disagrees with, in the queue's order (`only` that item)."""
    gold = gold_labels(queue=queue, config=config)
    wanted = [only.pk] if only is not None else list(gold)
    items = queue.items.filter(pk__in=wanted, source_kind=ItemSource.EXPERIMENT_RESULT)
    items = list(items.order_by("id"))
    results = Result.objects.filter(pk__in=[int(i.source_ref) for i in items]).select_related(
        "binding__evaluator_version__evaluator"
    )
    by_ref = {str(r.pk): r for r in results}
    misses = []
    for item in items:
        if item.pk not in gold:
            continue
        result, human = by_ref.get(item.source_ref), human_verdict(config, gold[item.pk])
        if result is not None and human in DECIDED and result.verdict != human:
            misses.append(JudgeMiss(item, result, gold[item.pk], human, result.verdict))
    return misses


def judge_miss_of(*, queue: AnnotationQueue, config: ScoreConfig, item: QueueItem):
    """The item's miss for `config`, or None when its judge and gold label agree (or it has
    no gold label, or its result is gone)."""
    found = judge_misses(queue=queue, config=config, only=item)
    return found[0] if found else None


def gold_items(*, queue: AnnotationQueue, config: ScoreConfig) -> list[tuple[QueueItem, object]]:
    """(item, gold label) of every item with a gold label for `config`, in the queue's order."""
    gold = gold_labels(queue=queue, config=config)
    items = queue.items.filter(pk__in=list(gold)).order_by("id")
    return [(item, gold[item.pk]) for item in items]
