"""The experiment kind of run: an evalset version's rows, chunk by chunk, through the target
and the bound evaluators (`chunks`), its numbers settled when it ends."""

from __future__ import annotations

from django.db.models import F
from django.db.models.functions import Greatest
from django.utils.translation import gettext_lazy as _

from ..models import (
    ChunkKind,
    ChunkStatus,
    Experiment,
    ExperimentChunk,
    Result,
    TargetResult,
)
from ..runs import lifecycle
from ..runs.kinds import RetryPlan, RunKind, run_kind_register
from ..selectors.runs import retry_counts

# with a target, a range's evaluator chunks wait for its target chunk, which unblocks them
WAITING_FOR_TARGET = {ChunkKind.CODE: ChunkStatus.WAITING, ChunkKind.LLM: ChunkStatus.WAITING}


class ExperimentRuns(RunKind):
    name = "experiment"
    noun = "experiment"
    run_model = Experiment
    chunk_model = ExperimentChunk
    run_field = "experiment"
    queues = {
        "llm": (ChunkKind.TARGET, ChunkKind.LLM),
        "code": (ChunkKind.CODE,),
    }
    kept = "the finished rows"
    claim_fresh = {"calls_in_flight": 0, "calls_answered": 0}
    inline_order = ("index", "kind")
    messages = {
        "cannot_cancel": _("A %(status)s experiment cannot be cancelled."),
        "not_finished": _("Retry once the experiment has finished."),
        "nothing_to_retry": _("There are no failed rows to retry."),
        "changed": _("The experiment changed meanwhile; reload it."),
    }

    def work(self, chunk, lease, **options) -> None:
        from .chunks import chunk_work

        chunk_work(chunk, lease)

    def settle(self, run_id: int) -> None:
        """Counters bumped by concurrent chunks (and by calls before their rows were
        written) are exact once everything is written; then calibrations and aggregates, and
        the workspace's webhooks hear how it ended."""
        from ..results.aggregates import aggregates_refresh
        from ..results.calibration import calibrations_record
        from .events import experiment_end_announce

        _settle_counters(run_id)
        experiment = Experiment.objects.select_related("workspace").get(pk=run_id)
        calibrations_record(experiment=experiment)
        aggregates_refresh(experiment=experiment)
        # settle runs once per move to an end state: the kind's side says so, once
        experiment_end_announce(experiment=experiment)

    def completed(self, run_id: int) -> None:
        # after the commit, outside the claim's transaction: a million-row pairing takes seconds
        from ..results.compare.prepare import run_pages_prepare_on_commit

        run_pages_prepare_on_commit(experiment_id=run_id)

    def chunk_done(self, chunk) -> set[str]:
        """Only evaluator chunks behind a target wait, and only that target chunk can finish
        first: unblock them; the queues they go to are dispatched with this chunk's."""
        queues = {self.queue_of(chunk)}
        waiting = ExperimentChunk.objects.filter(
            experiment_id=chunk.experiment_id, index=chunk.index, status=ChunkStatus.WAITING
        ).exclude(kind=ChunkKind.TARGET)
        for other in waiting:
            if lifecycle.chunk_move(self, other.pk, "unblock"):
                queues.add(self.queue_of(other))
        return queues

    def chunks_reset(self, run) -> None:
        with_target = run.target_spec.produces_output
        lifecycle.chunks_reset(self, run, first=WAITING_FOR_TARGET if with_target else None)

    def retry_plan(self, run) -> RetryPlan:
        """The rows whose target call failed are called again, then scored; the rows whose
        evaluator errored or timed out (or never wrote a result) are scored again."""
        counts = retry_counts(experiment=run)
        written = counts.rescored + counts.evaluator_rows - counts.unwritten
        fields = {
            # the results about to be written again (never-written ones were never counted)
            "results_done": F("results_done") - written,
            # called again; never below 0: a run finished before the counter existed has 0
            "targets_done": Greatest(F("targets_done") - counts.target_rows, 0),
        }
        return RetryPlan(count=counts.total, fields=fields, answer=counts)


def _settle_counters(experiment_id: int) -> None:
    """A row scored per assistant turn counts once (its turn 0; a row scored per row has only
    that)."""
    count = Result.objects.filter(experiment_id=experiment_id, turn=0).count()
    targets = TargetResult.objects.filter(experiment_id=experiment_id).count()
    Experiment.objects.filter(pk=experiment_id).update(results_done=count, targets_done=targets)


EXPERIMENT = run_kind_register(ExperimentRuns())
