"""Human review: score configs, annotation queues, their items, reviewers' slots and labels.

An item keeps a snapshot of what a reviewer sees (capped, untrusted text) and a reference to
where it came from (an experiment result's id, a trace id); it keeps no foreign key to the
source, which may go (traces are dropped by retention) while its labels stay.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from assay.bases import WorkspaceNamed

MAX_REVIEWERS = 10
DEFAULT_RESERVATION_MINUTES = 15


class ScoreKind(models.TextChoices):
    """What a reviewer gives: yes/no, one of some labels, a number in a range, text, or which
    of two outputs is better (pairwise queues: A, B or tie, the sides of the item)."""

    BOOLEAN = "boolean", _("boolean")
    CATEGORICAL = "categorical", _("categorical")
    NUMERIC = "numeric", _("numeric")
    TEXT = "text", _("free text")
    PAIRWISE = "pairwise", _("A, B or tie")


class QueueKind(models.TextChoices):
    """What an item of a queue is: one output to label, or two outputs for the same input to
    compare (A, B or tie)."""

    SINGLE = "single", _("one output")
    PAIRWISE = "pairwise", _("two outputs compared")


class ItemSource(models.TextChoices):
    """Where a queue's item came from."""

    EXPERIMENT_RESULT = "experiment_result", _("experiment result")
    TRACE = "trace", _("trace")
    SPAN = "span", _("span")
    SESSION = "session", _("session")
    EVALSET_ROW = "evalset_row", _("evalset row")
    PAIRWISE_RESULT = "pairwise_result", _("pairwise run's pair")
    EXPERIMENT_PAIR = "experiment_pair", _("two experiments' outputs")


class QueueAccess(models.TextChoices):
    """Who may review a queue's items (viewers never do)."""

    REVIEWERS = "reviewers", _("editors and owners")
    OWNERS = "owners", _("owners")
    ASSIGNED = "assigned", _("the assigned members")


class FeedKind(models.TextChoices):
    """What a feed follows: an online rule's outcomes or an experiment's results."""

    ONLINE_RULE = "online_rule", _("online rule")
    EXPERIMENT = "experiment", _("experiment")


class SlotStatus(models.TextChoices):
    """A reviewer's slot on an item: held until it expires, then labelled or skipped."""

    RESERVED = "reserved", _("reserved")
    LABELLED = "labelled", _("labelled")
    SKIPPED = "skipped", _("skipped")


class ScoreConfig(WorkspaceNamed):
    """What reviewers are asked for, and (optionally) which labels mean pass and fail so that a
    human label and an evaluator's verdict are comparable."""

    SETTINGS = (
        "name",
        "kind",
        "labels",
        "ordered",
        "minimum",
        "maximum",
        "step",
        "rubric",
        "pass_labels",
        "fail_labels",
    )

    kind = models.CharField(max_length=16, choices=ScoreKind.choices)
    labels = models.JSONField(default=list, blank=True)  # categorical: the labels, in order
    ordered = models.BooleanField(default=False)  # categorical: the order means something
    minimum = models.FloatField(null=True, blank=True)  # numeric
    maximum = models.FloatField(null=True, blank=True)
    step = models.FloatField(null=True, blank=True)
    rubric = models.TextField(blank=True)
    pass_labels = models.JSONField(default=list, blank=True)  # labels comparable to pass
    fail_labels = models.JSONField(default=list, blank=True)  # labels comparable to fail

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="score_config_name_once")
        ]
        ordering = ["name"]


class AnnotationQueue(WorkspaceNamed):
    """Items waiting for `reviewers_per_item` reviewers each, scored with its configs."""

    kind = models.CharField(max_length=16, choices=QueueKind.choices, default=QueueKind.SINGLE)
    score_configs = models.ManyToManyField(ScoreConfig, related_name="queues")
    reviewers_per_item = models.PositiveSmallIntegerField(default=1)
    reservation_minutes = models.PositiveIntegerField(default=DEFAULT_RESERVATION_MINUTES)
    blind = models.BooleanField(default=False)
    # who settles disagreements besides the workspace's owners (members; set by an owner)
    adjudicators = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")
    # who reviews: a role, or only the assigned members (editors or owners; set by an owner)
    open_to = models.CharField(max_length=16, choices=QueueAccess.choices, default="reviewers")
    assignees = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="annotation_queue_name_once")
        ]
        ordering = ["name"]


class QueueItem(models.Model):
    """One thing to review: its source and a snapshot of what reviewers see."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    queue = models.ForeignKey(AnnotationQueue, on_delete=models.CASCADE, related_name="items")
    source_kind = models.CharField(max_length=24, choices=ItemSource.choices)
    # a result's id, a trace id, "<trace id>:<span id>", a session id (at most 256 characters)
    source_ref = models.CharField(max_length=300)
    snapshot = models.JSONField(default=dict)  # input, output, reference, conversation (capped)
    judge = models.JSONField(default=list)  # evaluators' verdicts: never shown in a blind queue
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["queue", "source_kind", "source_ref"], name="queue_item_once"
            )
        ]
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.source_kind} {self.source_ref}"


class QueueFeed(models.Model):
    """A queue following a source: each sweep adds the source's new outcomes (an online
    rule's) or results (an experiment's) that match its filter and fall in its sample, from
    where the last sweep stopped (`cursor`: the last outcome's or result's id it read)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    queue = models.ForeignKey(AnnotationQueue, on_delete=models.CASCADE, related_name="feeds")
    kind = models.CharField(max_length=16, choices=FeedKind.choices)
    rule = models.ForeignKey(
        "online.OnlineRule", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    experiment = models.ForeignKey(
        "experiments.Experiment", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    verdicts = models.JSONField(default=list)  # the judges' verdicts it takes (empty: any)
    filter = models.JSONField(default=dict, blank=True)  # an experiment's: the grid's filters
    sampling_rate = models.FloatField(default=1.0)  # 0..1, by a hash of the item's key
    active = models.BooleanField(default=True)
    cursor = models.BigIntegerField(default=0)
    done = models.BooleanField(default=False)  # an experiment that finished, read to its end
    added = models.PositiveIntegerField(default=0)  # items it added
    swept_at = models.DateTimeField(null=True, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.queue_id} ← {self.kind}"


class ReviewSlot(models.Model):
    """A reviewer's turn at an item. A live reservation or a label takes one of the item's
    `reviewers_per_item` slots; a skip or an expired reservation frees it. One per reviewer and
    item: nobody reviews an item twice."""

    item = models.ForeignKey(QueueItem, on_delete=models.CASCADE, related_name="slots")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    status = models.CharField(max_length=16, choices=SlotStatus.choices)
    reserved_until = models.DateTimeField()
    skip_reason = models.TextField(blank=True)
    # a pairwise item's order for this reviewer, set once when the slot is first reserved:
    # True shows B on the left (labels always name the underlying side, never the position)
    swapped = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "reviewer"], name="review_slot_once")
        ]

    def __str__(self) -> str:
        return f"{self.reviewer_id} on {self.item_id}: {self.status}"


class Label(models.Model):
    """A reviewer's answer for one score config on one item; `value` None is "unknown" (kept,
    never counted in agreement)."""

    item = models.ForeignKey(QueueItem, on_delete=models.CASCADE, related_name="labels")
    score_config = models.ForeignKey(ScoreConfig, on_delete=models.CASCADE, related_name="+")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    value = models.JSONField(null=True, blank=True)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "score_config", "reviewer"], name="label_once")
        ]

    def __str__(self) -> str:
        return f"{self.reviewer_id} on {self.item_id}: {self.value!r}"


class Adjudication(models.Model):
    """An adjudicator's final label for one score config on an item whose reviewers disagreed.
    It is the item's gold label for that config (an item whose labels agree needs none)."""

    item = models.ForeignKey(QueueItem, on_delete=models.CASCADE, related_name="adjudications")
    score_config = models.ForeignKey(ScoreConfig, on_delete=models.CASCADE, related_name="+")
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    value = models.JSONField()
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "score_config"], name="adjudication_once")
        ]

    def __str__(self) -> str:
        return f"{self.item_id}: {self.value!r}"
