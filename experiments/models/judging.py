"""What is measured of judges and runs against others: a judge's calibration on gold
labels, and the CI gate's recorded decisions."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from assay.models import Workspace
from evaluators.models import EvaluatorVersion

from .runs import EvaluatorBinding, Experiment


class JudgeCalibration(models.Model):
    """How well an evaluator version agrees with human verdicts, measured on a labelled run.

    "Positive" is a fail (the harm or error was detected), so Se and Sp plug straight into the
    Rogan–Gladen correction of the fail rate.
    """

    class Source(models.TextChoices):
        EVALSET = "evalset", "human verdicts of a labelled run's evaluation set rows"
        GOLD = "gold", "gold labels of an annotation queue (adjudicated or unanimous)"

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    evaluator_version = models.ForeignKey(
        EvaluatorVersion, on_delete=models.CASCADE, related_name="calibrations"
    )
    # evalset: the labelled run and its binding; gold: none (the labels span runs)
    experiment = models.ForeignKey(
        Experiment, null=True, blank=True, on_delete=models.CASCADE, related_name="calibrations"
    )
    binding = models.OneToOneField(
        EvaluatorBinding,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="calibration",
    )
    source = models.CharField(max_length=8, choices=Source.choices, default=Source.EVALSET)
    source_key = models.CharField(max_length=80, blank=True)  # gold: "<queue id>/<config id>"
    labels = models.JSONField(
        default=dict, blank=True, help_text="gold: the queue, config, counts and inter-human alpha"
    )
    n = models.PositiveIntegerField(help_text="rows where both the judge and a human decided")
    agreement = models.FloatField(null=True)
    sensitivity = models.FloatField(null=True)
    specificity = models.FloatField(null=True)
    kappa = models.FloatField(null=True)
    confusion = models.JSONField(help_text="{tp, fn, fp, tn, judge_unknown, human_unknown}")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["evaluator_version", "source_key"],
                condition=models.Q(source="gold"),
                name="gold_calibration_once",
            )
        ]

    def __str__(self) -> str:
        return f"calibration of {self.evaluator_version} (n={self.n})"

    @property
    def usable(self) -> bool:
        """Enough decided rows, and Se/Sp defined, to correct another run's interval."""
        return self.n >= 30 and self.sensitivity is not None and self.specificity is not None


class GateDecision(models.Model):
    """The CI gate's latest decision on a candidate against a baseline at some options,
    recorded by `POST /api/v1/experiments/gate/` (the GET only reads). One row per check:
    posting it again updates the decision, and `gate.failed` is announced only the first time
    it fails (`failure_announced_at`), so a CI job re-run does not page anyone twice."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    candidate = models.ForeignKey(
        Experiment, on_delete=models.CASCADE, related_name="gate_decisions"
    )
    baseline = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="+")
    alpha = models.FloatField()
    max_drop = models.FloatField()
    max_unknown_rate = models.FloatField()
    min_decided = models.PositiveIntegerField()
    passed = models.BooleanField()
    # the gate's own reasons, then "<evaluator>: <reason>" per failing test (the API's words)
    reasons = models.JSONField(default=list, blank=True)
    # the failing evaluators' rows (`asdict(GateEvaluator)`), so pages word the reasons in
    # each reader's language (null: recorded before they were kept)
    failing = models.JSONField(null=True, blank=True)
    decided_at = models.DateTimeField()
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    failure_announced_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=[
                    "candidate",
                    "baseline",
                    "alpha",
                    "max_drop",
                    "max_unknown_rate",
                    "min_decided",
                ],
                name="gate_decision_once_per_check",
            )
        ]

    def __str__(self) -> str:
        return f"gate {self.candidate_id} vs {self.baseline_id}: {self.passed}"
