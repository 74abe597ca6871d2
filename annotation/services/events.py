"""What annotation tells the workspace's webhooks (`notifications.services.event_emit`):
`annotation.adjudication_needed` when an item's last needed label makes it a disagreement."""

from __future__ import annotations

from django.urls import reverse

from assay.vocabulary import EventType
from notifications.services import event_emit

from ..models import QueueItem, SlotStatus
from ..selectors import comparable_configs, config_outcomes


def item_disagreement_announce(*, item: QueueItem) -> None:
    """Emit `annotation.adjudication_needed` (sent once the caller's transaction commits) if
    the label just stored was the last one the item needed and its reviewers disagree. The
    caller holds the item's lock, so exactly one label sees the count reach the queue's
    number: the item is announced once."""
    queue = item.queue
    if item.slots.filter(status=SlotStatus.LABELLED).count() != queue.reviewers_per_item:
        return
    disputed = [
        config.name
        for config in comparable_configs(queue=queue)
        if (found := config_outcomes(queue=queue, config=config, items=[item]).get(item.pk))
        and found.disagreement
    ]
    if disputed:
        event_emit(
            workspace=queue.workspace,
            event_type=EventType.ANNOTATION_ADJUDICATION_NEEDED,
            data=_data(item, disputed),
        )


def _data(item: QueueItem, disputed: list[str]) -> dict:
    queue = item.queue
    page = reverse(
        "annotation:adjudicate", kwargs={"ws": queue.workspace.slug, "queue_id": queue.public_id}
    )
    return {
        "queue": {"id": str(queue.public_id), "name": queue.name},
        "item": str(item.public_id),
        "score_configs": disputed,
        "path": f"{page}?item={item.public_id}",
    }
