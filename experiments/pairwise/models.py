"""Pairwise runs, their chunks of work and their judged pairs (re-exported by
`experiments.models`, so the app's migrations see them)."""

from __future__ import annotations

import json

from django.db import models

from assay.models import Workspace
from assay.vocabulary import PairOutcome, ResultStatus
from evalsets.models import EvalSet, EvalSetItem
from evaluators.models import EvaluatorVersion
from evaluators.pairing import OUTPUT_A, OUTPUT_B
from evaluators.turns import DATASET, TARGET

from ..models import Experiment
from ..runs.bases import ChunkBase, RunBase, RunStatus


class PairwiseRun(RunBase):
    """A pairwise judge on two or more finished experiments of one evalset (any versions of
    it): every pair of experiments on every item they share, each pair in both orders. The
    first experiment is the baseline, A. Status moves as an experiment's does."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    evalset = models.ForeignKey(EvalSet, on_delete=models.PROTECT, related_name="+")
    evaluator_version = models.ForeignKey(
        EvaluatorVersion, on_delete=models.PROTECT, related_name="pairwise_runs"
    )
    mapping = models.JSONField(
        default=dict, blank=True, help_text="judge variable → 'column:<name>' (besides A and B)"
    )
    repetitions = models.PositiveSmallIntegerField(
        default=1, help_text="How many times the judge sees each pair (in both orders each time)."
    )
    chunk_size = models.PositiveIntegerField(default=100, help_text="items per chunk")
    interval = models.JSONField(default=dict, blank=True)
    summary = models.JSONField(
        default=dict, blank=True, help_text="The statistics (results.pairwise), when last settled."
    )
    summary_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["workspace", "-created_at"]),
            models.Index(fields=["status", "heartbeat_at"]),
        ]
        ordering = ["-created_at", "-pk"]

    @property
    def progress_percent(self) -> float:
        if not self.results_total:
            return 100.0 if self.status == RunStatus.COMPLETED else 0.0
        return min(100.0, 100 * self.results_done / self.results_total)


class PairwiseEntry(models.Model):
    """One experiment of a pairwise run, in the run's order (position 0: the baseline)."""

    run = models.ForeignKey(PairwiseRun, on_delete=models.CASCADE, related_name="entries")
    experiment = models.ForeignKey(Experiment, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "position"], name="unique_pairwise_position"),
            models.UniqueConstraint(fields=["run", "experiment"], name="unique_pairwise_entry"),
        ]
        ordering = ["position"]

    def __str__(self) -> str:
        return f"{self.run_id}:{self.position}"


class PairwiseChunk(ChunkBase):
    """A range of item ids of a pairwise run (every pair of its experiments on them): the unit
    a task claims, under a lease, as an experiment's chunk is."""

    kind = "pairwise"  # the dispatcher's word for this work (it has no kinds of chunk)

    run = models.ForeignKey(PairwiseRun, on_delete=models.CASCADE, related_name="chunks")
    uid_from = models.UUIDField(help_text="the first item id of the range")
    uid_to = models.UUIDField(null=True, blank=True, help_text="exclusive; empty: to the end")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["run", "index"], name="unique_pairwise_chunk")
        ]
        indexes = [
            models.Index(fields=["run", "status"]),
            models.Index(fields=["status"], name="pairwise_chunk_dispatch"),
        ]
        ordering = ["index"]

    def __str__(self) -> str:
        return f"{self.run_id}:pairwise:{self.index}"


class PairwiseResult(models.Model):
    """One (run, item, pair of experiments, repetition): both orders' requests and answers and
    the outcome they make, written once by an idempotent upsert.

    `answer_ab` is the judge's answer with A shown first, `answer_ba` with B shown first, each
    as the judge said it ("A": the output shown first); `outcome` is in the frame A = the
    pair's first experiment, B = its second.
    """

    run = models.ForeignKey(PairwiseRun, on_delete=models.CASCADE, related_name="results")
    item = models.ForeignKey(EvalSetItem, on_delete=models.CASCADE, related_name="+")
    item_uid = models.UUIDField()
    experiment_a = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="+")
    experiment_b = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="+")
    repeat = models.PositiveSmallIntegerField(default=0)
    position = models.BigIntegerField(default=0, help_text="the item's row in A's version")
    tags = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=8, choices=ResultStatus.choices)
    outcome = models.CharField(max_length=8, choices=PairOutcome.choices)
    position_inconsistent = models.BooleanField(default=False)
    answer_ab = models.CharField(max_length=8, blank=True)
    answer_ba = models.CharField(max_length=8, blank=True)
    reason_ab = models.TextField(blank=True)
    reason_ba = models.TextField(blank=True)
    raw_ab = models.TextField(null=True, blank=True)
    raw_ba = models.TextField(null=True, blank=True)
    request_ab = models.JSONField(null=True, blank=True)
    request_ba = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    input = models.JSONField(help_text="The turn the judge received (A, B order).")
    latency_ms = models.FloatField(default=0)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost = models.FloatField(null=True, blank=True)
    cached = models.BooleanField(default=False)
    attempt = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # A judged pair's own columns, in the order the API and the export both list them.
    JUDGED_FIELDS = (
        "status",
        "outcome",
        "position_inconsistent",
        "answer_ab",
        "answer_ba",
        "reason_ab",
        "reason_ba",
        "error",
        "latency_ms",
        "tokens_in",
        "tokens_out",
        "cost",
        "cached",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["run", "item_uid", "experiment_a", "experiment_b", "repeat"],
                name="unique_pairwise_result",
            )
        ]
        indexes = [
            models.Index(fields=["run", "experiment_a", "experiment_b", "position"]),
            models.Index(fields=["run", "position"]),
            models.Index(fields=["run", "status"]),
        ]
        ordering = ["position", "experiment_a_id", "experiment_b_id", "repeat"]

    def __str__(self) -> str:
        return f"pair {self.item_uid} · {self.experiment_a_id} vs {self.experiment_b_id}"

    @property
    def row_number(self) -> int:
        return self.position + 1

    @property
    def output_a(self) -> str | None:
        """A's output as the judge saw it (None: A had none)."""
        return _text((self.input or {}).get(TARGET, {}).get(OUTPUT_A))

    @property
    def output_b(self) -> str | None:
        return _text((self.input or {}).get(TARGET, {}).get(OUTPUT_B))

    @property
    def inputs(self) -> list[tuple[str, str]]:
        """The row's own variables the judge saw, (name, text), outputs left out."""
        fields = {**(self.input or {}).get(DATASET, {}), **(self.input or {}).get(TARGET, {})}
        return [(k, _text(v) or "") for k, v in fields.items() if k not in (OUTPUT_A, OUTPUT_B)]


def _text(content) -> str | None:
    """The text of a Text content (or a JSON rendering of another kind)."""
    if not isinstance(content, dict):
        return None
    if isinstance(content.get("text"), str):
        return content["text"]
    return json.dumps(content, ensure_ascii=False)
