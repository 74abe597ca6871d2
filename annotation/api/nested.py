"""The base of every route under one queue, `/api/v1/annotation-queues/<queue_id>/…`."""

from __future__ import annotations

from assay.api.base import WorkspaceScopedViewSet
from assay.selectors import public_or_404

from .. import selectors
from ..models import AnnotationQueue


class QueueNested(WorkspaceScopedViewSet):
    """A route under one queue of the workspace (404 for another's)."""

    def queue(self) -> AnnotationQueue:
        return self.parent(self._queue_of, "queue_id")

    @staticmethod
    def _queue_of(*, workspace, public_id):
        return public_or_404(
            selectors.annotation_queues_list(workspace=workspace), public_id, "queue"
        )
