"""API: /api/v1/evalsets/{evalset_id}/versions/: committed versions of a set."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.response import Response

from assay.api.base import LibraryVersionViewSet, validated

from .. import selectors, services
from ..models import EvalSet
from . import serializers as s


@extend_schema_view(
    list=extend_schema(
        summary=_("List an evaluation set's versions"),
        description=_(
            "The committed versions of one set, highest SemVer first, each with its note, "
            "row count and columns. 404 when the set is not in this workspace."
        ),
    ),
    create=extend_schema(
        summary=_("Commit an evaluation set version"),
        description=_(
            "Freezes the draft's columns and rows as `version` (SemVer, greater than the "
            "latest) with an optional `note` (201); experiments run on versions, and rows are "
            "numbered from 1 in draft order. A draft of more than ASSAY_COMMIT_INLINE_ROWS "
            "rows (20,000 by default) is copied in the background: 202 with the version "
            "`committing`, `rows_copied` of `item_count`, and `poll_url` (Get an evaluation "
            "set version) until `status` is `ready`; meanwhile the draft cannot be changed "
            "and experiments cannot pin the version. 400 names the field: a version that "
            "exists, is not greater than the latest or is not SemVer, a deleted set, or a "
            "draft with a commit or an import under way."
        ),
        request=s.VersionCommitSerializer,
        responses={201: s.VersionSerializer, 202: s.VersionSerializer},
    ),
    retrieve=extend_schema(
        summary=_("Get an evaluation set version"),
        description=_(
            "One version by its SemVer string (e.g. 1.0.0); 404 for a version the set does "
            "not have. List its rows with List an evaluation set's items and `version`."
        ),
    ),
)
class VersionViewSet(LibraryVersionViewSet):
    """Committed versions of a set: the draft frozen under a SemVer string."""

    serializer_class = s.VersionSerializer
    create_serializer_class = s.VersionCommitSerializer

    def item(self) -> EvalSet:
        return self.parent(selectors.evalset_get, "evalset_id")

    def version_create(self, *, item, user, body):
        return services.version_commit(evalset=item, user=user, **body)

    def create(self, request, **kwargs):
        """201 with the version when its rows are copied; 202 while a background commit copies
        them, with the URL to poll (the version, whose `status` turns `ready`)."""
        item = self.item()
        body = validated(self.create_serializer_class, request)
        created = self.version_create(item=item, user=request.user, body=body)
        data = self.get_serializer(created).data
        if created.is_ready:
            return Response(data, status=status.HTTP_201_CREATED)
        poll = reverse(
            "evalset-version-detail",
            kwargs={"evalset_id": item.public_id, "version": created.version},
        )
        return Response({**data, "poll_url": request.build_absolute_uri(poll)}, status=202)
