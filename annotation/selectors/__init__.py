"""Reads of human review, scoped to a workspace: configs, queues, items, progress, agreement,
and the snapshots of the items a queue is given (read from the apps below)."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from assay.models import Membership, Workspace
from assay.safety.caps import DISPLAY_STRING_BYTES, cap_json, cap_text
from assay.selectors import unknown_named
from experiments.models import JudgeCalibration, Result
from experiments.scoring.turns import result_turns
from experiments.selectors.runs import experiment_find
from experiments.stats.agreement import reviewer_agreement
from online.models import OnlineOutcome
from traces.models import TraceSummary
from traces.selectors import session_turns

from ..models import (
    Adjudication,
    AnnotationQueue,
    ItemSource,
    Label,
    QueueItem,
    ReviewSlot,
    ScoreConfig,
    ScoreKind,
    SlotStatus,
)

# A snapshot is what a reviewer reads: every string capped, and the whole kept under this
# (the strings are capped harder when it is over).
SNAPSHOT_BYTES = 256 * 1024
SMALL_STRING_BYTES = 2 * 1024
HEX_TRACE_ID = re.compile(r"^[0-9a-f]{32}$")
REFERENCE_NAMES = ("reference", "expected")
MAX_JUDGE_ENTRIES = 20  # online verdicts kept per trace


@dataclass(frozen=True)
class SourceItem:
    """An item to add to a queue: its source, what reviewers see and what the judges said."""

    kind: str
    ref: str
    snapshot: dict
    judge: list = field(default_factory=list)


def score_configs_list(*, workspace: Workspace) -> QuerySet[ScoreConfig]:
    return ScoreConfig.objects.filter(workspace=workspace)


def score_config_for(*, workspace: Workspace, public_id) -> ScoreConfig | None:
    """The workspace's config of that id, or None (also for a malformed id)."""
    try:
        return ScoreConfig.objects.filter(workspace=workspace, public_id=public_id).first()
    except (ValueError, ValidationError):  # a malformed id: as another workspace's
        return None


def annotation_queues_list(*, workspace: Workspace) -> QuerySet[AnnotationQueue]:
    return AnnotationQueue.objects.filter(workspace=workspace).prefetch_related("score_configs")


def queue_items(*, queue: AnnotationQueue) -> QuerySet[QueueItem]:
    return queue.items.order_by("id")


def queue_item_get(*, queue: AnnotationQueue, public_id) -> QueueItem | None:
    return queue.items.filter(public_id=public_id).first()


def items_labels(*, items: list[QueueItem], reviewer=None) -> dict[int, list[Label]]:
    """The labels of these items by item pk (only `reviewer`'s when given), in one query."""
    labels = Label.objects.filter(item__in=items).select_related("score_config", "reviewer")
    if reviewer is not None:
        labels = labels.filter(reviewer=reviewer)
    found: dict[int, list[Label]] = {item.pk: [] for item in items}
    for label in labels.order_by("id"):
        found[label.item_id].append(label)
    return found


def live(now=None) -> Q:
    """The slots that take a place on their item: labelled ones and unexpired reservations."""
    now = now or timezone.now()
    return Q(status=SlotStatus.LABELLED) | Q(status=SlotStatus.RESERVED, reserved_until__gt=now)


def queue_progress(*, queue: AnnotationQueue) -> dict:
    """Items, labelled slots and done items of the queue, and each reviewer's counts."""
    items = queue.items.count()
    slots = ReviewSlot.objects.filter(item__queue=queue)
    done = (
        queue.items.annotate(n=Count("slots", filter=Q(slots__status=SlotStatus.LABELLED)))
        .filter(n__gte=queue.reviewers_per_item)
        .count()
    )
    reviewers = _reviewer_counts(slots)
    return {
        "items": items,
        "items_done": done,
        "labels_needed": items * queue.reviewers_per_item,
        "labels_given": sum(c[SlotStatus.LABELLED] for c in reviewers.values()),
        "reviewers": [
            {"reviewer": name, **{s: counts[s] for s in SlotStatus.values}}
            for name, counts in sorted(reviewers.items())
        ],
    }


def _reviewer_counts(slots: QuerySet[ReviewSlot]) -> dict[str, Counter]:
    """Each reviewer's slots by status; an expired reservation is "expired", not reserved."""
    reviewers: dict[str, Counter] = {}
    now = timezone.now()
    for name, status, until in slots.values_list("reviewer__username", "status", "reserved_until"):
        held = status != SlotStatus.RESERVED or until > now
        reviewers.setdefault(name, Counter())[status if held else "expired"] += 1
    return reviewers


# ----------------------------------------------------------------------------- agreement


def queue_agreement(*, queue: AnnotationQueue, iterations: int = 2000) -> list[dict]:
    """Per score config of the queue, the reviewers' agreement (`reviewer_agreement`) over its
    items; unknown labels (None) and skips are no labels. Free text has none."""
    found = []
    for config in queue.score_configs.order_by("name"):
        level, order = agreement_level(config)
        entry = {"score_config": str(config.public_id), "name": config.name, "level": level}
        if level is not None:
            units = config_units(queue=queue, config=config)
            entry["agreement"] = reviewer_agreement(
                units, level=level, order=order, iterations=iterations
            ).to_dict()
        found.append(entry)
    return found


def agreement_level(config: ScoreConfig) -> tuple[str | None, list | None]:
    """Krippendorff's level for a config's kind (None: free text, no agreement) and the order
    of ordered labels."""
    if config.kind == ScoreKind.NUMERIC:
        return "interval", None
    if config.kind == ScoreKind.CATEGORICAL and config.ordered:
        return "ordinal", list(config.labels)
    if config.kind in (ScoreKind.BOOLEAN, ScoreKind.CATEGORICAL, ScoreKind.PAIRWISE):
        return "nominal", None  # a pairwise label: A, B or tie, no order among them
    return None, None


def config_units(*, queue: AnnotationQueue, config: ScoreConfig) -> list[dict]:
    """One mapping per item, reviewer's username → label, of the known labels."""
    units: dict[int, dict] = {}
    labels = Label.objects.filter(item__queue=queue, score_config=config, value__isnull=False)
    for item, name, value in labels.values_list("item_id", "reviewer__username", "value"):
        if value is not None:  # a JSON null is not SQL NULL on every database
            units.setdefault(item, {})[name] = value
    return [units[k] for k in sorted(units)]


# ----------------------------------------------------------------------------- gold labels
# An item's gold label for a config is the adjudicator's when there is one, else the
# reviewers' when all `reviewers_per_item` of them gave the same known label (unanimous). All
# labels in but not unanimous (two values, or an unknown among them): a disagreement, waiting
# for an adjudicator. Derived on every read, never stored: a label or an adjudication changes it.


@dataclass(frozen=True)
class ConfigOutcome:
    """What an item's reviewers and adjudicator said for one config."""

    values: list  # the reviewers' labels (None: unknown)
    adjudicated: Adjudication | None
    needed: int

    @property
    def complete(self) -> bool:
        return len(self.values) >= self.needed

    @property
    def unanimous(self) -> bool:
        return self.complete and None not in self.values and len(_distinct(self.values)) == 1

    @property
    def disagreement(self) -> bool:
        return self.complete and not self.unanimous and self.adjudicated is None

    @property
    def gold(self) -> tuple[bool, object]:
        """(whether there is a gold label, the label)."""
        if self.adjudicated is not None:
            return True, self.adjudicated.value
        return (True, self.values[0]) if self.unanimous else (False, None)


def _distinct(values: list) -> set:
    return {json.dumps(v, sort_keys=True) for v in values}


def comparable_configs(*, queue: AnnotationQueue) -> list[ScoreConfig]:
    """The queue's configs whose labels can agree or not (all but free text)."""
    return [c for c in queue.score_configs.order_by("name") if c.kind != ScoreKind.TEXT]


def config_outcomes(
    *, queue: AnnotationQueue, config: ScoreConfig, items=None
) -> dict[int, ConfigOutcome]:
    """Item pk → its reviewers' labels and adjudication for `config` (items with a label)."""
    labels = Label.objects.filter(item__queue=queue, score_config=config)
    adjudications = Adjudication.objects.filter(item__queue=queue, score_config=config)
    if items is not None:
        labels, adjudications = labels.filter(item__in=items), adjudications.filter(item__in=items)
    values: dict[int, list] = {}
    for item, value in labels.order_by("id").values_list("item_id", "value"):
        values.setdefault(item, []).append(value)
    settled = {a.item_id: a for a in adjudications.select_related("adjudicator")}
    return {
        item: ConfigOutcome(found, settled.get(item), queue.reviewers_per_item)
        for item, found in values.items()
    }


def gold_labels(*, queue: AnnotationQueue, config: ScoreConfig) -> dict[int, object]:
    """Item pk → gold label for `config`: adjudicated, or unanimous once all labels are in."""
    gold = {}
    for item, outcome in config_outcomes(queue=queue, config=config).items():
        found, value = outcome.gold
        if found:
            gold[item] = value
    return gold


def queue_disagreements(*, queue: AnnotationQueue) -> list[tuple[QueueItem, list[ScoreConfig]]]:
    """Items whose labels are all in and disagree on a config no adjudicator has settled,
    with those configs, in the queue's order."""
    waiting: dict[int, list[ScoreConfig]] = {}
    for config in comparable_configs(queue=queue):
        for item, outcome in config_outcomes(queue=queue, config=config).items():
            if outcome.disagreement:
                waiting.setdefault(item, []).append(config)
    items = queue.items.filter(pk__in=list(waiting)).order_by("id")
    return [(item, waiting[item.pk]) for item in items]


def writers_named(*, workspace: Workspace, usernames: list[str], field: str):
    """({username: user id} of the workspace's editors and owners among `usernames`, problems
    naming each name that is not one, as `field[i]`)."""
    writers = workspace.memberships.exclude(role=Membership.Role.VIEWER)
    found = dict(
        writers.filter(user__username__in=usernames).values_list("user__username", "user_id")
    )
    message = _("No editor or owner of this workspace has that name.")
    return found, unknown_named(field, usernames, found, message)


def queue_adjudicator_is(*, queue: AnnotationQueue, user, membership) -> bool:
    """Owners adjudicate every queue of their workspace; other members the queue names."""
    if membership is None:
        return False
    if membership.role == membership.Role.OWNER:
        return True
    return queue.adjudicators.filter(pk=user.pk).exists()


def queue_calibrations(*, queue: AnnotationQueue) -> list[dict]:
    """The evaluator versions' calibrations recorded from the queue's gold labels: which
    labels (config, gold items, adjudicated, unanimous), the judge against them and the
    reviewers' own alpha beside the judge's kappa."""
    found = JudgeCalibration.objects.filter(
        source=JudgeCalibration.Source.GOLD, source_key__startswith=f"{queue.public_id}/"
    ).select_related("evaluator_version__evaluator")
    return [
        {
            "id": str(c.public_id),
            "evaluator": c.evaluator_version.evaluator.name,
            "evaluator_id": str(c.evaluator_version.evaluator.public_id),
            "version": c.evaluator_version.version,
            "n": c.n,
            "confusion": c.confusion,
            "agreement": c.agreement,
            "sensitivity": c.sensitivity,
            "specificity": c.specificity,
            "kappa": c.kappa,
            "usable": c.usable,
            "labels": c.labels,
        }
        for c in found.order_by("source_key", "evaluator_version_id")
    ]


# ----------------------------------------------------------------------------- sources


def result_items(*, workspace: Workspace, experiment_id, result_ids: list[int]) -> dict:
    """The items for these results of the workspace's experiment: {"items": [SourceItem]} or
    {"errors": {field: [message]}} naming the experiment or each result that is not one."""
    experiment = experiment_find(workspace=workspace, public_id=experiment_id)
    if experiment is None:
        return {"errors": {"experiment": [_("No such experiment in this workspace.")]}}
    results = {
        r.pk: r
        for r in Result.objects.filter(experiment=experiment, pk__in=result_ids).select_related(
            "binding__evaluator_version__evaluator", "item"
        )
    }
    missing = unknown_named("results", result_ids, results, _("No such result in this experiment."))
    if missing:
        return {"errors": missing}
    turns = result_turns(results=results.values())
    return {"items": [_result_item(results[pk], turns[pk]) for pk in dict.fromkeys(result_ids)]}


def _result_item(result: Result, turn: dict) -> SourceItem:
    output = turn.get("evaluate_target_output_fields") or {}
    fields = {**_row_fields(result, output), **(turn.get("evaluate_dataset_fields") or {})}
    reference = {k: v for k, v in fields.items() if k.startswith(REFERENCE_NAMES)}
    snapshot = {
        "input": {k: v for k, v in fields.items() if k not in reference},
        "output": output,
        "reference": reference,
        "row_number": result.row_number,
    }
    version = result.binding.evaluator_version
    judge = {
        "evaluator": version.evaluator.name,
        "version": version.version,
        "verdict": result.verdict,
        "score": result.score,
        "reason": cap_text(result.reason, SMALL_STRING_BYTES),
        "human_verdict": result.human_verdict,
    }
    return SourceItem(
        ItemSource.EXPERIMENT_RESULT, str(result.pk), snapshot_capped(snapshot), [judge]
    )


def _row_fields(result: Result, output: dict) -> dict:
    """The row's columns but those the turn took as its output: the question is shown even
    when the evaluator read only the answer and the reference."""
    return {k: v for k, v in (result.item.data or {}).items() if k not in output}


def trace_items(*, workspace: Workspace, trace_ids: list[str]) -> dict:
    """The items for the workspace's traces (their first input and last output, as a chat),
    with the online rules' verdicts on each: {"items"} or {"errors"} naming each bad id."""
    wanted = [str(t).lower() for t in trace_ids]
    summaries = {
        s.trace_id: s
        for s in TraceSummary.objects.filter(
            workspace=workspace, trace_id__in=[t for t in wanted if HEX_TRACE_ID.match(t)]
        )
    }
    missing = unknown_named("traces", wanted, summaries, _("No such trace in this workspace."))
    if missing:
        return {"errors": missing}
    ordered = [summaries[t] for t in dict.fromkeys(wanted)]
    turns = session_turns(workspace=workspace, traces=ordered)
    judges = _online_verdicts(workspace, list(summaries))
    return {"items": [_trace_item(turn, judges.get(turn["trace"].trace_id, [])) for turn in turns]}


def _trace_item(turn: dict, judge: list[dict]) -> SourceItem:
    snapshot = {"input": turn["input"], "output": turn["output"], "conversation": turn["chat"]}
    return SourceItem(ItemSource.TRACE, turn["trace"].trace_id, snapshot_capped(snapshot), judge)


def _online_verdicts(workspace: Workspace, trace_ids: list[str]) -> dict[str, list[dict]]:
    outcomes = OnlineOutcome.objects.filter(
        rule__workspace=workspace, trace_id__in=trace_ids
    ).select_related("rule_evaluator__evaluator_version__evaluator")
    found: dict[str, list[dict]] = {}
    for outcome in outcomes.order_by("created_at"):
        if len(found.get(outcome.trace_id, ())) >= MAX_JUDGE_ENTRIES:
            continue
        found.setdefault(outcome.trace_id, []).append(outcome_verdict(outcome))
    return found


def outcome_verdict(outcome: OnlineOutcome) -> dict:
    """What an online evaluator said of an item, as a queue item's judge entry."""
    version = outcome.rule_evaluator.evaluator_version
    return {
        "evaluator": version.evaluator.name,
        "version": version.version,
        "span_id": outcome.span_id,
        "verdict": outcome.verdict,
        "score": outcome.score,
        "reason": cap_text(outcome.reason, SMALL_STRING_BYTES),
    }


def snapshot_capped(snapshot: dict) -> dict:
    """Every string capped; when the whole is still too big, capped harder."""
    capped = cap_json(snapshot, DISPLAY_STRING_BYTES)
    if len(json.dumps(capped, default=str)) > SNAPSHOT_BYTES:
        capped = cap_json(snapshot, SMALL_STRING_BYTES)
    return capped
