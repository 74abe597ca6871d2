"""Reads of gold labels for what they teach: the items where a judge's verdict (an
evaluator's on a result, an online rule's on live traffic) and the gold label disagree (each
could become a test case of the evaluator), and the gold items of a config as rows for an
evaluation set. Gold labels themselves: `selectors.gold_labels`."""

from __future__ import annotations

from dataclasses import dataclass

from assay.vocabulary import Verdict
from evaluators.models import EvaluatorVersion
from experiments.models import Result
from online.models import OnlineOutcome

from ..models import AnnotationQueue, ItemSource, QueueItem, ScoreConfig
from ..services.gold import human_verdict
from . import gold_labels
from .filtered import traffic_outcomes

DECIDED = (Verdict.PASS.value, Verdict.FAIL.value)


@dataclass(frozen=True)
class JudgeMiss:
    """An item whose gold label (a pass or a fail) a judge's verdict does not match: an
    evaluator's on an experiment's result, or an online rule's on live traffic."""

    item: QueueItem
    version: EvaluatorVersion  # the judge that missed
    gold: object
    human: str  # the verdict the gold label means
    judge: str  # the evaluator's own verdict (not a correction)
    result: Result | None = None  # what it judged: an experiment's result…
    outcome: OnlineOutcome | None = None  # …or a span, trace or session of live traffic


def verdict_configs(*, queue: AnnotationQueue) -> list[ScoreConfig]:
    """The queue's configs whose labels map to pass and fail (comparable with a judge)."""
    configs = queue.score_configs.exclude(kind="text").order_by("name")
    return [c for c in configs if c.pass_labels or c.fail_labels]


def judge_misses(
    *, queue: AnnotationQueue, config: ScoreConfig, only: QueueItem | None = None
) -> list[JudgeMiss]:
    """Items whose gold label means a pass or a fail that a judge's verdict disagrees with, in
    the queue's order (`only` that item): the evaluator's on an experiment's result still
    stored, and each online rule's on a span, trace or session it judged as that subject."""
    gold = gold_labels(queue=queue, config=config)
    wanted = [only.pk] if only is not None else list(gold)
    misses = _result_misses(queue, config, gold, wanted) + _traffic_misses(
        queue, config, gold, wanted
    )
    return sorted(misses, key=lambda m: (m.item.pk, m.version.pk))


def _result_misses(queue, config, gold: dict, wanted: list[int]) -> list[JudgeMiss]:
    items = queue.items.filter(pk__in=wanted, source_kind=ItemSource.EXPERIMENT_RESULT)
    items = [i for i in items if i.pk in gold]
    results = Result.objects.filter(pk__in=[int(i.source_ref) for i in items]).select_related(
        "binding__evaluator_version__evaluator"
    )
    by_ref = {str(r.pk): r for r in results}
    misses = []
    for item in items:
        result, human = by_ref.get(item.source_ref), human_verdict(config, gold[item.pk])
        if result is not None and human in DECIDED and result.verdict != human:
            version = result.binding.evaluator_version
            misses.append(JudgeMiss(item, version, gold[item.pk], human, result.verdict, result))
    return misses


def _traffic_misses(queue, config, gold: dict, wanted: list[int]) -> list[JudgeMiss]:
    found = traffic_outcomes(queue=queue, item_pks=[pk for pk in wanted if pk in gold])
    items = queue.items.in_bulk(list(found))
    return [
        JudgeMiss(items[pk], version, gold[pk], human, outcome.verdict, outcome=outcome)
        for pk, outcomes in found.items()
        if (human := human_verdict(config, gold[pk])) in DECIDED
        for version, outcome in outcomes.items()
        if outcome.verdict != human
    ]


def judge_miss_of(*, queue: AnnotationQueue, config: ScoreConfig, item: QueueItem):
    """The item's first miss for `config` (by judge), or None when its judges and gold label
    agree (or it has no gold label, or what was judged is gone)."""
    found = judge_misses(queue=queue, config=config, only=item)
    return found[0] if found else None


def gold_items(*, queue: AnnotationQueue, config: ScoreConfig) -> list[tuple[QueueItem, object]]:
    """(item, gold label) of every item with a gold label for `config`, in the queue's order."""
    gold = gold_labels(queue=queue, config=config)
    items = queue.items.filter(pk__in=list(gold)).order_by("id")
    return [(item, gold[item.pk]) for item in items]
