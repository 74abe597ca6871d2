"""Experiments: a pinned evalset version scored by pinned evaluator versions, row by row."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from assay.bases import UploadJob
from assay.models import Workspace
from assay.vocabulary import VERDICT_MARKS, ResultStatus, Verdict
from evalsets.models import EvalSetItem, EvalSetVersion
from evaluators.models import EvaluatorVersion
from evaluators.policies import describe_policy

from .runs.bases import ACTIVE_STATUSES, ChunkBase, ChunkStatus, RunBase, RunStatus  # noqa: F401

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
        from .targets import target_get

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


class GarakReference(models.Model):
    """A file of garak's reference data uploaded to a workspace: a calibration (probe/detector →
    mu, sigma of the pass rate, for Z ratings) or detector metrics (detector → sensitivity,
    specificity, for corrected intervals). The newest of each kind is the one used."""

    class Kind(models.TextChoices):
        CALIBRATION = "calibration", "calibration"
        DETECTOR_METRICS = "detector_metrics", "detector metrics"

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    name = models.CharField(max_length=200)
    entries = models.JSONField(
        help_text="calibration: {probe/detector: {mu, sigma}}; "
        "metrics: {detector: {sensitivity, specificity}}"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"garak {self.kind} {self.name}"


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


class GarakImportStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    COMPLETED = "completed", _("Completed")
    FAILED = "failed", _("Failed")


ACTIVE_GARAK_IMPORTS = (GarakImportStatus.QUEUED, GarakImportStatus.RUNNING)


class GarakImport(UploadJob):
    """An uploaded garak report imported in the background: checked in the request (every
    refusal is a 400 there), then a worker makes each probe's evalset version, evaluators and
    launched run, one probe per transaction, counting `probes_done` of `probes_total`.
    queued → running (claimed by one conditional UPDATE) → completed | failed. `run_key`
    (garak's run id, its scored attempts, partial or not) recognises the same run uploaded
    again; `already` marks an upload answered with an earlier import's experiments."""

    status = models.CharField(
        max_length=16, choices=GarakImportStatus.choices, default=GarakImportStatus.QUEUED
    )
    file_path = models.CharField(
        max_length=500, blank=True, help_text="The uploaded report in storage, until imported."
    )
    threshold = models.FloatField(null=True, blank=True, help_text="As given with the upload.")
    partial = models.BooleanField(default=False)
    run_id = models.CharField(max_length=200, blank=True, help_text="garak's run id")
    run_key = models.CharField(max_length=300, blank=True)
    probes_total = models.PositiveIntegerField(default=0)
    probes_done = models.PositiveIntegerField(default=0)
    experiments = models.ManyToManyField(Experiment, related_name="+", blank=True)
    already = models.BooleanField(default=False)
    notes = models.JSONField(
        default=list, blank=True, help_text="What the import says of the report, as messages."
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            # one active import per run and workspace: a second upload of a run being imported
            # answers with that import instead of making the run twice
            models.UniqueConstraint(
                fields=["workspace", "run_key"],
                condition=models.Q(status__in=ACTIVE_GARAK_IMPORTS) & ~models.Q(run_key=""),
                name="garak_import_one_active_per_run",
            )
        ]

    def __str__(self) -> str:
        return f"garak import {self.file_name} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {GarakImportStatus.COMPLETED, GarakImportStatus.FAILED}

    @property
    def percent(self) -> int:
        if self.status == GarakImportStatus.COMPLETED:
            return 100
        if not self.probes_total:
            return 0
        return min(99, int(100 * self.probes_done / self.probes_total))

    @property
    def message_shown(self) -> str:
        """The failure message in the reader's language (stored with its message id)."""
        from evalsets.items.problems import message_text

        return message_text(self.message, self.message_params)

    @property
    def notes_shown(self) -> list[str]:
        from evalsets.items.problems import message_text

        return [message_text(n.get("text", ""), n) for n in self.notes]


# Pairwise runs are experiments' too: their models live in their room (experiments.pairwise),
# imported here so that the app's migrations and `from experiments.models import …` see them.
from .pairwise.models import (  # noqa: E402, F401
    PairwiseChunk,
    PairwiseEntry,
    PairwiseResult,
    PairwiseRun,
)
