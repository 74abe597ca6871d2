"""The shared API base: resolves the request's workspace and scopes every queryset to it."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, status, viewsets
from rest_framework.decorators import action
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.response import Response

from assay.api.schema import EXCEL_PARAMETER
from assay.models import ApiToken, Workspace
from assay.selectors import (
    library_version_get,
    library_versions,
    membership_get,
    password_change_required,
    workspaces_for_user,
)


def resolve_workspace(request) -> Workspace | None:
    """Token → its workspace; otherwise X-Assay-Workspace / ?workspace= / session / first one."""
    if isinstance(request.auth, ApiToken):
        return request.auth.workspace
    slug = (
        request.headers.get("X-Assay-Workspace")
        or request.query_params.get("workspace")
        or request.session.get("workspace_slug")
    )
    mine = workspaces_for_user(user=request.user)
    if slug:
        workspace = mine.filter(slug=slug).first()
        if workspace is None:
            raise Http404(_("No such workspace"))
        return workspace
    return mine.order_by("created_at").first()


def validated(serializer_class, request, **options) -> dict:
    """The request body as `serializer_class` validates it (a 400 naming each bad field)."""
    serializer = serializer_class(data=request.data, **options)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class WorkspaceMixin:
    """Sets request.workspace and request.membership before permissions run."""

    def initial(self, request, *args, **kwargs):
        self.perform_authentication(request)
        if not isinstance(request.auth, ApiToken) and password_change_required(user=request.user):
            # the session's way round choosing one's own password (as workspace_view asks)
            raise exceptions.PermissionDenied(
                _("Choose your own password first: you signed in with a temporary one.")
            )
        request.workspace = None
        request.membership = None
        if request.user and request.user.is_authenticated:
            request.workspace = resolve_workspace(request)
            if request.workspace is not None:
                request.membership = membership_get(workspace=request.workspace, user=request.user)
        super().initial(request, *args, **kwargs)

    def parent(self, selector, kwarg: str):
        """The object a nested route's URL names (`kwarg`), looked up by `selector` inside the
        request's workspace: 404 without one, or when the id is not this workspace's."""
        if self.request.workspace is None:
            raise Http404
        return selector(workspace=self.request.workspace, public_id=self.kwargs[kwarg])


class WorkspaceScopedViewSet(WorkspaceMixin, viewsets.GenericViewSet):
    """Objects are looked up by public_id inside the request's workspace; anything else is 404."""

    lookup_field = "public_id"
    lookup_url_kwarg = "id"
    lookup_value_converter = "uuid"

    def scoped_queryset(self):
        raise NotImplementedError

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.scoped_queryset_model().objects.none()
        if self.request.workspace is None:
            raise exceptions.NotFound(_("No workspace selected."))
        return self.scoped_queryset()

    def scoped_queryset_model(self):
        return self.queryset.model


class LibraryVersionViewSet(WorkspaceMixin, viewsets.GenericViewSet):
    """The versions of a library item (an evaluator, an evaluation set) under the item's route,
    addressed by SemVer string: list, retrieve and create. There is no update and no delete.

    A subclass names `serializer_class` (a version), `create_serializer_class` (the body of a new
    one), `item()` (the parent from the URL) and `version_create()` (the app's service)."""

    lookup_field = "version"
    lookup_value_converter = "str"
    create_serializer_class: type

    def item(self):
        raise NotImplementedError

    def version_create(self, *, item, user, body: dict):
        raise NotImplementedError

    def get_queryset(self):
        return None

    def list(self, request, **kwargs):
        page = self.paginate_queryset(library_versions(item=self.item()))
        return self.get_paginated_response(self.get_serializer(page, many=True).data)

    def retrieve(self, request, version=None, **kwargs):
        found = library_version_get(item=self.item(), version=version)
        return Response(self.get_serializer(found).data)

    def create(self, request, **kwargs):
        item = self.item()
        body = validated(self.create_serializer_class, request)
        created = self.version_create(item=item, user=request.user, body=body)
        return Response(self.get_serializer(created).data, status=status.HTTP_201_CREATED)


class IgnoreFormatNegotiation(DefaultContentNegotiation):
    """For download actions whose `?format=` names a file format (csv, jsonl…), not a renderer:
    errors still come back as JSON."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def export_action(formats):
    """The `export` action of a run's viewset (GET <id>/export/?format=…&excel=1), its route
    and schema written once for experiments and pairwise runs; `formats` are the files it
    streams, CSV first."""
    schema = extend_schema(
        parameters=[OpenApiParameter("format", str, enum=[*formats]), EXCEL_PARAMETER],
        responses={(200, "text/csv"): str},
    )
    route = action(
        detail=True,
        methods=["get"],
        url_path="export",
        content_negotiation_class=IgnoreFormatNegotiation,
    )
    return lambda view: schema(route(view))


def export_format(request, formats) -> str:
    """The export's `?format=` (csv by default); a format not in `formats` is a 400 naming them."""
    fmt = request.query_params.get("format", "csv")
    if fmt not in formats:
        raise ValidationError(
            {"format": _("Use one of %(formats)s.") % {"formats": ", ".join(formats)}}
        )
    return fmt
