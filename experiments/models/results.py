"""What an experiment's run stores: the target's row for each item, each binding's result,
the aggregates and paired comparisons computed when it finishes."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from assay.vocabulary import VERDICT_MARKS, ResultStatus, Verdict
from evalsets.models import EvalSetItem

from .runs import EvaluatorBinding, Experiment


class TargetResult(models.Model):
    """The target's output for one item (and repetition): what evaluators mapped to
    `target:<output>` receive."""

    experiment = models.ForeignKey(
        Experiment, on_delete=models.CASCADE, related_name="target_results"
    )
    item = models.ForeignKey(EvalSetItem, on_delete=models.CASCADE, related_name="+")
    item_uid = models.UUIDField()
    repeat = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=8, choices=ResultStatus.choices)
    output = models.TextField(blank=True)
    trajectory = models.TextField(null=True, blank=True, help_text="JSON text of the steps.")
    conversation = models.JSONField(
        null=True, blank=True, help_text="A Conversation content (a simulated user's chat)."
    )
    error = models.TextField(blank=True)
    rendered_request = models.JSONField(null=True, blank=True)
    raw_response = models.TextField(null=True, blank=True)
    latency_ms = models.FloatField(default=0)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost = models.FloatField(null=True, blank=True)
    # The run's retry round that wrote it: a result scored from an older one is re-scored.
    retry_round = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "item", "repeat"], name="unique_target_result"
            )
        ]

    def __str__(self) -> str:
        return f"target {self.item_uid}"


def results_of_bindings_delete(collector, field, sub_objs, using) -> None:
    """`on_delete` of a result's binding: the deleted bindings' results go, found by
    (experiment, binding) so that the unique key serves the delete (no index leads with the
    binding). A binding deleted with its experiment adds nothing: the experiment's own cascade
    takes its results. Never evaluates `sub_objs` (results by binding alone: a full scan)."""
    deleting = [e.pk for e in collector.data.get(Experiment, ())]
    pks = [b.pk for b in collector.data.get(field.related_model, ())]
    bindings = field.related_model.objects.using(using).filter(pk__in=pks)
    by_experiment: dict[int, list[int]] = {}
    for experiment, binding in bindings.exclude(experiment__in=deleting).values_list(
        "experiment_id", "pk"
    ):
        by_experiment.setdefault(experiment, []).append(binding)
    for experiment, ids in by_experiment.items():
        results = field.model._base_manager.using(using)
        collector.fast_deletes.append(results.filter(experiment_id=experiment, binding__in=ids))


results_of_bindings_delete.lazy_sub_objs = True  # Django then passes sub_objs unevaluated


class Result(models.Model):
    """One (experiment, item, evaluator version, repetition, turn): written once by an
    idempotent upsert.

    The turn its evaluator received is not copied here: its parts are stored once (the row,
    the target's output, the binding's mapping) and `scoring.turns.result_turns` rebuilds it.
    """

    # no index of its own: the unique key and every read path lead with the experiment
    experiment = models.ForeignKey(
        Experiment, on_delete=models.CASCADE, related_name="results", db_index=False
    )
    # No index of its own (32 bytes a result): a binding's results are read with its
    # experiment's, through the unique key (the experiment leads, the binding is filtered in
    # the index). No database constraint either: its check on deleting a binding would look
    # for the binding's results by the binding alone, a full scan; bindings go only with
    # their experiment, whose cascade takes the results, or through the handler above.
    binding = models.ForeignKey(
        EvaluatorBinding,
        on_delete=results_of_bindings_delete,
        related_name="results",
        db_constraint=False,
        db_index=False,
    )
    # An item of the experiment's evalset version: versions are immutable and never deleted
    # (the experiment PROTECTs its version), so no item a result names can go. Without a
    # database constraint and its index (23 bytes a result): with them, every deleted draft
    # row would look through the results (a sequential scan each, there being no index).
    # Its stable id (EvalSetItem.item_id) is read through it, not copied (16 bytes a result).
    item = models.ForeignKey(
        EvalSetItem,
        on_delete=models.DO_NOTHING,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    repeat = models.PositiveSmallIntegerField(default=0)
    turn = models.PositiveSmallIntegerField(
        default=0, help_text="The assistant turn scored, from 0 (0 for a binding scored per row)."
    )
    position = models.BigIntegerField(default=0)
    tags = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=8, choices=ResultStatus.choices)
    score = models.FloatField(null=True, blank=True)
    reason = models.TextField(blank=True)
    verdict = models.CharField(max_length=8, choices=Verdict.choices)
    error = models.TextField(blank=True)
    stdout = models.TextField(blank=True)
    latency_ms = models.FloatField(default=0)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost = models.FloatField(null=True, blank=True)
    rendered_request = models.JSONField(null=True, blank=True)
    raw_answer = models.TextField(null=True, blank=True)
    attempt = models.PositiveSmallIntegerField(default=0)
    cached = models.BooleanField(
        default=False, help_text="Served from the response cache: no request was made."
    )
    human_verdict = models.CharField(max_length=8, choices=Verdict.choices, blank=True)
    human_score = models.FloatField(null=True, blank=True)
    correction_note = models.TextField(blank=True)
    # indexed only where set (the partial index below): almost every result has no correction
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,
    )
    # no created/updated times (16 bytes a result): nothing reads them; a correction has its own
    corrected_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # An experiment pins one evalset version, whose rows have distinct positions, so the
        # position names the item here: the upsert's key is also the walk in row order.
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "position", "binding", "repeat", "turn"],
                name="unique_result",
            )
        ]
        indexes = [
            models.Index(fields=["experiment", "binding", "verdict"]),
            models.Index(fields=["experiment", "status"]),
            models.Index(
                fields=["corrected_by"],
                name="result_corrected_by",
                condition=models.Q(corrected_by__isnull=False),
            ),
        ]
        ordering = ["position", "binding_id"]

    def __str__(self) -> str:
        return f"result {self.item_id}@{self.position} · {self.binding_id}"

    @property
    def final_verdict(self) -> str:
        """The human correction when there is one, else the evaluator's verdict."""
        return self.human_verdict or self.verdict

    @property
    def final_score(self) -> float | None:
        """The corrected score when a human gave one with their verdict, else the evaluator's."""
        if self.human_verdict and self.human_score is not None:
            return self.human_score
        return self.score

    @property
    def row_number(self) -> int:
        """The item's row number in its evalset version, as every page shows it."""
        return self.position + 1

    @property
    def final_verdict_label(self) -> str:
        return Verdict(self.final_verdict).label

    @property
    def final_verdict_mark(self) -> str:
        return VERDICT_MARKS[self.final_verdict]


class Aggregate(models.Model):
    """The dashboard's numbers for one (experiment, evaluator binding), refreshed on change."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="aggregates")
    binding = models.OneToOneField(
        EvaluatorBinding, on_delete=models.CASCADE, related_name="aggregate"
    )
    summary = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"aggregate {self.binding_id}"


class PairedComparison(models.Model):
    """Numbers over two bindings' paired results, stored the first time they are read: a
    compare page (or the trends' flips) at a million rows reads these instead of pairing
    every result again.

    Valid while `stamp` matches both bindings' aggregates (refreshed when a run finishes and
    on every correction). For a comparison, `rows` holds the row diff's item ids, 16 bytes
    each, in the order the page lists them (regressions, improvements, unknown flips,
    unchanged, one-sided); `stats["spans"]` says where each list starts, so a page reads only
    its own ids.
    """

    class Kind(models.TextChoices):
        COMPARE = "compare", "paired statistics and the row diff"
        FLIPS = "flips", "pass/fail flips by (item, repetition), for the trends"

    baseline = models.ForeignKey(EvaluatorBinding, on_delete=models.CASCADE, related_name="+")
    candidate = models.ForeignKey(EvaluatorBinding, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.COMPARE)
    stamp = models.CharField(max_length=200)
    stats = models.JSONField()
    rows = models.BinaryField(default=bytes)
    computed_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["baseline", "candidate", "kind"], name="unique_paired_numbers"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.baseline_id} → {self.candidate_id}"
