"""Writes of human review: score configs (`configs`), queues and their items (`queues`), and
reviewers' reservations, labels and skips (`reviews`), adjudication and gold labels to the
judges' calibration (`gold`)."""

from .configs import label_problem, score_config_create, score_config_delete, score_config_update
from .gold import gold_calibrations_refresh, item_adjudicate
from .queues import (
    annotation_queue_create,
    annotation_queue_delete,
    annotation_queue_update,
    queue_items_add,
)
from .reviews import SlotRefused, review_label, review_next, review_skip

__all__ = [
    "SlotRefused",
    "annotation_queue_create",
    "annotation_queue_delete",
    "annotation_queue_update",
    "gold_calibrations_refresh",
    "item_adjudicate",
    "label_problem",
    "queue_items_add",
    "review_label",
    "review_next",
    "review_skip",
    "score_config_create",
    "score_config_delete",
    "score_config_update",
]
