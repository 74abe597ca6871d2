"""What an experiment's end tells the workspace's webhooks
(`notifications.services.event_emit`): once per move to completed, failed or cancelled, from
the finishing transaction (sent after it commits)."""

from __future__ import annotations

from django.urls import reverse

from assay.vocabulary import EventType
from notifications.services import event_emit

from ..models import Experiment
from ..runs.bases import RunStatus

ENDED = {
    RunStatus.COMPLETED: EventType.EXPERIMENT_COMPLETED,
    RunStatus.FAILED: EventType.EXPERIMENT_FAILED,
    RunStatus.CANCELLED: EventType.EXPERIMENT_CANCELLED,
}


def experiment_end_announce(*, experiment: Experiment) -> None:
    """Emit the event of the state the experiment just ended in (nothing for another)."""
    event_type = ENDED.get(experiment.status)
    if event_type is None:
        return
    event_emit(workspace=experiment.workspace, event_type=event_type, data=_data(experiment))


def _data(experiment: Experiment) -> dict:
    ws, pk = experiment.workspace.slug, experiment.public_id
    return {
        "experiment": str(pk),
        "name": experiment.name,
        "status": experiment.status,
        "results_done": experiment.results_done,
        "results_total": experiment.results_total,
        "error": experiment.error_message[:500],
        "path": reverse("experiments:detail", kwargs={"ws": ws, "id": pk}),
    }
