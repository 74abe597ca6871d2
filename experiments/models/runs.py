"""An experiment run: a pinned evalset version scored by pinned evaluator versions (its
bindings), in chunks."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from assay.models import Workspace
from evalsets.models import EvalSetVersion
from evaluators.models import EvaluatorVersion
from evaluators.policies import describe_policy

from ..runs.bases import ChunkBase, RunBase, RunStatus

ExperimentStatus = RunStatus  # an experiment's states are every run's (runs.bases)


class Experiment(RunBase):
    """One run. Status moves draft → queued → running → completed | failed | cancelled."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="experiments")
    probe_name = models.CharField(
        max_length=160, blank=True, help_text="garak's probe name in reports; empty: the name"
    )
    interval = models.JSONField(
        default=dict,
        blank=True,
        help_text="interval settings (experiments.stats.interval_settings)",
    )
    evalset_version = models.ForeignKey(
        EvalSetVersion, on_delete=models.PROTECT, related_name="experiments"
    )
    target_kind = models.CharField(
        max_length=16, default="none", help_text="A kind registered in experiments.targets."
    )
    target_config = models.JSONField(default=dict, blank=True)
    chunk_size = models.PositiveIntegerField(default=1000)
    repetitions = models.PositiveSmallIntegerField(
        default=1, help_text="How many times the target (or, without one, each judge) runs per row."
    )
    outputs_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="rescores",
        help_text="The finished run whose target outputs this one scores again (re-score).",
    )
    is_baseline = models.BooleanField(
        default=False, help_text="A reference run the CI gate compares candidates against."
    )
    target_summary = models.JSONField(
        default=dict, blank=True, help_text="Latency, tokens and cost of the target's rows."
    )
    # target outputs written or answered (bumped as calls finish; exact once the run ends)
    targets_done = models.PositiveIntegerField(default=0)
    # when results_done or targets_done last moved (the ETA counts down from there)
    progressed_at = models.DateTimeField(null=True, blank=True)
    # when the client of an external target called close/: later pushes are refused
    outputs_closed_at = models.DateTimeField(null=True, blank=True)
    cloned_from = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="clones"
    )

    class Meta:
        indexes = [
            models.Index(fields=["workspace", "-created_at"]),
            models.Index(fields=["status", "heartbeat_at"]),
        ]
        ordering = ["-created_at"]

    @property
    def progress(self) -> float:
        if not self.results_total:
            return 1.0 if self.status == ExperimentStatus.COMPLETED else 0.0
        return min(1.0, self.results_done / self.results_total)

    @property
    def progress_percent(self) -> int:
        """Target outputs and results together: a list's bar moves while the target answers
        (`results_done` alone sat at 0 % until the first results were written)."""
        targets = self.items_total * self.repetitions if self.target_spec.produces_output else 0
        if not (targets and self.results_total):
            return round(100 * self.progress)
        done = min(self.results_done, self.results_total) + min(self.targets_done, targets)
        return round(100 * done / (self.results_total + targets))

    @property
    def target_spec(self):
        from ..targets import target_get

        return target_get(self.target_kind)


class TurnAggregate(models.TextChoices):
    """How a per-turn binding's turn results become the item's verdict (statistics.md)."""

    ALL_PASS = "all_pass", _("every turn passes")
    MEAN = "mean", _("mean score of the turns")
    MIN = "min", _("lowest score of the turns")


class EvaluatorBinding(models.Model):
    """An evaluator version in an experiment: how its variables are fed and its verdict rule."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="bindings")
    evaluator_version = models.ForeignKey(
        EvaluatorVersion, on_delete=models.PROTECT, related_name="bindings"
    )
    mapping = models.JSONField(help_text="variable → 'column:<name>' | 'target:actual_output'")
    policy = models.JSONField()
    ext = models.JSONField(default=dict, blank=True)
    applies_to = models.JSONField(
        default=dict,
        blank=True,
        help_text='Rows it scores: {"tags": [...]} and/or {"column": name}; empty: every row',
    )
    position = models.PositiveSmallIntegerField(default=0)
    per_turn = models.BooleanField(
        default=False, help_text="One result per assistant turn of `turn_source`, not per row."
    )
    turn_source = models.CharField(
        max_length=200,
        blank=True,
        help_text="The Conversation scored turn by turn: column:<name> or target:conversation",
    )
    turn_aggregate = models.CharField(
        max_length=8, choices=TurnAggregate.choices, default=TurnAggregate.ALL_PASS
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["experiment", "evaluator_version"], name="unique_binding"
            )
        ]
        ordering = ["position", "pk"]

    def __str__(self) -> str:
        return f"{self.experiment} · {self.evaluator_version}"

    @property
    def policy_text(self) -> str:
        """The verdict rule in words ("pass if score ≥ 0.5")."""
        return describe_policy(self.policy, self.evaluator_version.score_meaning)

    @property
    def sources(self) -> list[tuple[str, str]]:
        """(variable, source) pairs of the mapping, sorted by variable."""
        return sorted(self.mapping.items())


class ChunkKind(models.TextChoices):
    TARGET = "target", _("target")
    CODE = "code", _("code evaluators")
    LLM = "llm", _("LLM evaluators")


class ExperimentChunk(ChunkBase):
    """A slice of the items (by position) for one kind of work; the unit a task claims."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="chunks")
    kind = models.CharField(max_length=8, choices=ChunkKind.choices)
    position_from = models.BigIntegerField()
    position_to = models.BigIntegerField(help_text="exclusive")
    # the calls (the target's, or an LLM chunk's judge calls) this chunk's runner has in flight
    # (reported every second; read only while the chunk runs)
    calls_in_flight = models.PositiveIntegerField(default=0)
    # an LLM chunk's judge calls answered since its last commit (reported every second, reset
    # by the commit that writes them; read only while the chunk runs)
    calls_answered = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["experiment", "kind", "index"], name="unique_chunk")
        ]
        indexes = [
            models.Index(fields=["experiment", "status"]),
            models.Index(fields=["status", "kind"], name="chunk_dispatch"),
        ]
        ordering = ["index", "kind"]

    def __str__(self) -> str:
        return f"{self.experiment_id}:{self.kind}:{self.index}"
