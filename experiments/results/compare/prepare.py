"""What a run's first pages would count, counted when the run completes instead: the trends'
flips of its pairs with the runs before it, and the statistics of the pair its compare page
opens on (the run it was cloned from, else the previous completed run on the same evalset),
so the first view of either page reads stored numbers instead of pairing a million rows.
"""

from __future__ import annotations

import logging

from django.db import transaction

from ...models import Experiment, ExperimentStatus
from ..trends import evalset_trends
from . import compare_experiments

log = logging.getLogger(__name__)


def run_pages_prepare(*, experiment_id: int) -> None:
    """Store the completed run's trend flips and its default comparison (a run still working,
    cancelled or failed has neither; a pair already stored is only read)."""
    run = Experiment.objects.select_related("evalset_version__evalset", "workspace").get(
        pk=experiment_id
    )
    if run.status != ExperimentStatus.COMPLETED:
        return
    evalset_trends(workspace=run.workspace, evalset=run.evalset_version.evalset, current=run)
    baseline = default_baseline(run)
    if baseline is not None:
        compare_experiments(
            workspace=run.workspace, baseline=baseline, candidates=[run], with_ids=False
        )


def default_baseline(run: Experiment) -> Experiment | None:
    """The baseline the pages propose for `run`: the run it was cloned from ("Compare with …"
    on its page), else the run before it in the trends (their "compare" link)."""
    done = Experiment.objects.filter(
        workspace_id=run.workspace_id,
        evalset_version__evalset_id=run.evalset_version.evalset_id,
        status=ExperimentStatus.COMPLETED,
    ).exclude(pk=run.pk)
    origin = done.filter(pk=run.cloned_from_id).first() if run.cloned_from_id else None
    if origin is not None:
        return origin
    if run.finished_at is None:  # only rows written by hand lack it: the newest before it
        return done.filter(pk__lt=run.pk).order_by("-pk").first()
    earlier = done.filter(finished_at__lt=run.finished_at) | done.filter(
        finished_at=run.finished_at, pk__lt=run.pk
    )
    return earlier.select_related("evalset_version").order_by("-finished_at", "-pk").first()


def run_pages_prepare_on_commit(*, experiment_id: int) -> None:
    """Once the completion commits (the numbers are read from the stored aggregates), prepare
    the pages; a failure only leaves the first view to count them, so it never fails the run."""

    def prepare() -> None:
        try:
            run_pages_prepare(experiment_id=experiment_id)
        except Exception:  # the page counts them on its first view instead
            log.exception("preparing the pages of run %s failed", experiment_id)

    transaction.on_commit(prepare)
