"""cancel/ and retry-failed/ in the API for every kind of run: a run's viewset names its kind
(`run_kind`), the serializer of a run and what retry-failed/ answers (`retried_body`)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.response import Response

from ..runs.services import run_cancel, run_retry_failed


class RunActionsMixin:
    """cancel/ and retry-failed/ of a viewset of one kind of run."""

    run_kind = None  # a `runs.kinds.RunKind`
    run_serializer = None

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def cancel(self, request, id=None):
        """Running chunks stop at once (between rows); a queued run is cancelled at once."""
        run = run_cancel(kind=self.run_kind, run=self.get_object())
        return Response(self.run_serializer(run).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(request=None)
    @action(detail=True, methods=["post"], url_path="retry-failed")
    def retry_failed(self, request, id=None):
        """Run the failed rows again, into the same run; the body says how many."""
        run = self.get_object()
        answer = run_retry_failed(kind=self.run_kind, run=run)
        return Response(self.retried_body(run, answer), status=status.HTTP_202_ACCEPTED)

    def retried_body(self, run, answer) -> dict:
        return {"retried": answer}
