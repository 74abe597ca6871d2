"""Adjudication of disagreements, and gold labels to the judges' calibration.

An adjudicator (an owner, or a member the queue names) sets the final label of a config on an
item whose reviewers disagreed. Gold labels (adjudicated or unanimous: `selectors.gold_labels`)
of items from experiment results are then compared with the evaluator's verdict on the result,
and those of spans, traces and sessions with the online rules' verdicts on that same subject,
for the configs that map labels to pass and fail, and recorded as that evaluator version's
calibration (`experiments.results.calibration.gold_calibrations_replace`), which experiments
and online monitors use to correct their fail rates.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from assay.vocabulary import Verdict
from experiments.models import Result
from experiments.results.calibration import gold_calibrations_drop, gold_calibrations_replace
from experiments.stats.agreement import krippendorff_alpha

from ..models import Adjudication, AnnotationQueue, ItemSource, QueueItem, ScoreConfig
from ..selectors import (
    agreement_level,
    comparable_configs,
    config_outcomes,
    config_units,
    gold_labels,
)
from ..selectors.filtered import traffic_outcomes
from .configs import label_problem, label_stored
from .reviews import MAX_NOTE, SlotRefused


def item_adjudicate(
    *, item: QueueItem, adjudicator: AbstractBaseUser, values: dict, note: str = ""
) -> list[Adjudication]:
    """Set the final label of each config in `values` (score config → a known label) on an
    item whose labels are all in; it replaces an earlier adjudication. The callers check that
    `adjudicator` may. The judges' calibrations from the queue follow."""
    queue = item.queue
    errors = _adjudication_problems(queue, values)
    if len(note) > MAX_NOTE:
        errors["note"] = [_("A note holds at most 20,000 characters.")]
    if errors:
        raise ValidationError(errors)
    for config in values:
        outcome = config_outcomes(queue=queue, config=config, items=[item]).get(item.pk)
        if outcome is None or not outcome.complete:
            raise SlotRefused(_("Adjudicate once every reviewer has labelled the item."))
    with transaction.atomic():
        settled = [
            Adjudication.objects.update_or_create(
                item=item,
                score_config=config,
                defaults={
                    "value": label_stored(config, value),
                    "note": note,
                    "adjudicator": adjudicator,
                },
            )[0]
            for config, value in values.items()
        ]
    gold_calibrations_refresh(queue=queue)
    return settled


def _adjudication_problems(queue: AnnotationQueue, values: dict) -> dict[str, list[str]]:
    configs = comparable_configs(queue=queue)
    errors: dict[str, list[str]] = {}
    if not values:
        errors["values"] = [_("Give the final label of at least one score config.")]
    for config, value in values.items():
        if config is None or config not in configs:
            errors["values"] = [_("Adjudicate only this queue's score configs (not free text).")]
        elif value is None:
            errors[f"values.{config.public_id}"] = [_("A final label cannot be unknown.")]
        elif problem := label_problem(config, value):
            errors[f"values.{config.public_id}"] = [problem]
    return errors


def gold_calibrations_refresh(*, queue: AnnotationQueue) -> None:
    """Record the calibration of every evaluator version whose results or online verdicts the
    queue's gold labels judge, per config mapping labels to pass and fail; those of configs the
    queue no longer has, or that no longer map, go."""
    mapped = [c for c in comparable_configs(queue=queue) if c.pass_labels or c.fail_labels]
    gold_calibrations_drop(
        source_prefix=f"{queue.public_id}/", keep={_source_key(queue, c) for c in mapped}
    )
    for config in mapped:
        _config_calibrations(queue, config)


def _source_key(queue: AnnotationQueue, config: ScoreConfig) -> str:
    return f"{queue.public_id}/{config.public_id}"


def _config_calibrations(queue: AnnotationQueue, config: ScoreConfig) -> None:
    gold = gold_labels(queue=queue, config=config)
    refs = dict(
        queue.items.filter(pk__in=list(gold), source_kind=ItemSource.EXPERIMENT_RESULT).values_list(
            "source_ref", "pk"
        )
    )
    results = Result.objects.filter(pk__in=[int(r) for r in refs]).select_related(
        "binding__evaluator_version"
    )
    pairs: dict = {}
    for result in results:  # results gone (retention) judge nothing
        human = human_verdict(config, gold[refs[str(result.pk)]])
        pairs.setdefault(result.binding.evaluator_version, []).append((result.verdict, human))
    for pk, outcomes in traffic_outcomes(queue=queue, item_pks=gold).items():
        human = human_verdict(config, gold[pk])
        for version, outcome in outcomes.items():
            pairs.setdefault(version, []).append((outcome.verdict, human))
    gold_calibrations_replace(
        source_key=_source_key(queue, config),
        pairs=pairs,
        labels=_labels_described(queue, config, gold),
    )


def human_verdict(config: ScoreConfig, value) -> str:
    """The verdict a label means for `config` ("" when it maps to neither)."""
    if value in (config.pass_labels or []):
        return Verdict.PASS.value
    if value in (config.fail_labels or []):
        return Verdict.FAIL.value
    return ""


def _labels_described(queue: AnnotationQueue, config: ScoreConfig, gold: dict) -> dict:
    """Which labels a calibration used, and the reviewers' own agreement (the ceiling)."""
    level, order = agreement_level(config)
    units = config_units(queue=queue, config=config)
    adjudicated = queue.items.filter(pk__in=list(gold), adjudications__score_config=config).count()
    return {
        "source": "gold",
        "queue": str(queue.public_id),
        "queue_name": queue.name,
        "score_config": str(config.public_id),
        "score_config_name": config.name,
        "gold_items": len(gold),
        "adjudicated": adjudicated,
        "unanimous": len(gold) - adjudicated,
        "inter_human_alpha": krippendorff_alpha(units, level=level, order=order),
    }
