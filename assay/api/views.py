"""API endpoints for workspaces, members, tokens and providers."""

from __future__ import annotations

from django.db.models import Prefetch
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response

from assay import selectors, services
from assay.models import ApiToken, Membership, ModelProvider, Secret

from . import serializers as s
from .base import WorkspaceMixin, WorkspaceScopedViewSet, validated


class WorkspaceViewSet(WorkspaceMixin, viewsets.ModelViewSet):
    """Workspaces you belong to. Anyone signed in may create one and becomes its owner.

    An API token lives in one workspace: it sees that workspace only, read-only.
    """

    serializer_class = s.WorkspaceSerializer
    lookup_field = "slug"
    lookup_value_converter = "slug"
    workspace_optional = True
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_queryset(self):
        mine = selectors.workspaces_for_user(user=self.request.user)
        if isinstance(self.request.auth, ApiToken):
            mine = mine.filter(pk=self.request.auth.workspace_id)
        return mine.prefetch_related(Prefetch("memberships", queryset=Membership.objects.all()))

    def check_permissions(self, request):
        super().check_permissions(request)
        if isinstance(request.auth, ApiToken) and request.method not in SAFE_METHODS:
            self.permission_denied(
                request,
                message="An API token acts inside its own workspace; sign in to create or "
                "rename workspaces.",
            )

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = services.workspace_create(
            name=data["name"], slug=data.get("slug", ""), owner=self.request.user
        )

    def perform_update(self, serializer):
        name = serializer.validated_data.get("name", serializer.instance.name)
        services.workspace_rename(workspace=serializer.instance, user=self.request.user, name=name)


class MemberViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.DestroyModelMixin):
    """Members of the request's workspace; owners add, re-role and remove them."""

    serializer_class = s.MembershipSerializer
    queryset = Membership.objects.all()
    lookup_field = "pk"
    lookup_value_converter = "int"
    write_role = Membership.Role.OWNER

    def scoped_queryset(self):
        return selectors.members_list(workspace=self.request.workspace)

    def create(self, request):
        body = validated(s.MembershipSerializer, request)
        membership = services.membership_add(
            workspace=request.workspace,
            username=body["user"]["username"],
            role=body.get("role", Membership.Role.EDITOR),
        )
        return Response(s.MembershipSerializer(membership).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=s.MembershipUpdateSerializer, responses=s.MembershipSerializer)
    def partial_update(self, request, id=None):
        membership = self.get_object()  # an outsider learns nothing from validation errors
        body = validated(s.MembershipUpdateSerializer, request)
        membership = services.membership_update(membership=membership, role=body["role"])
        return Response(s.MembershipSerializer(membership).data)

    def perform_destroy(self, instance):
        services.membership_remove(membership=instance)


class TokenViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.RetrieveModelMixin):
    """Your API tokens in the request's workspace. The key is returned once, at creation."""

    serializer_class = s.TokenSerializer
    queryset = ApiToken.objects.all()
    write_role = Membership.Role.VIEWER

    def scoped_queryset(self):
        return selectors.tokens_list(workspace=self.request.workspace, user=self.request.user)

    @extend_schema(request=s.TokenCreateSerializer, responses={201: s.IssuedTokenSerializer})
    def create(self, request):
        body = validated(s.TokenCreateSerializer, request)
        issued = services.token_issue(
            workspace=request.workspace, user=request.user, name=body["name"]
        )
        issued.token.key = issued.key
        return Response(s.IssuedTokenSerializer(issued.token).data, status=status.HTTP_201_CREATED)

    @extend_schema(request=None, responses=s.TokenSerializer)
    @action(detail=True, methods=["post"])
    def revoke(self, request, id=None):
        token = services.token_revoke(token=self.get_object())
        return Response(s.TokenSerializer(token).data)


class SecretViewSet(WorkspaceScopedViewSet, viewsets.ModelViewSet):
    """Named workspace secrets for HTTP-target headers (`{{secrets.NAME}}`). Values are
    write-only; members see names and hints, only owners create, replace or delete."""

    serializer_class = s.SecretSerializer
    queryset = Secret.objects.all()
    write_role = Membership.Role.OWNER
    http_method_names = ["get", "post", "put", "delete", "head", "options"]

    def scoped_queryset(self):
        return selectors.secrets_list(workspace=self.request.workspace)

    def perform_create(self, serializer):
        serializer.instance = services.secret_named_save(
            workspace=self.request.workspace, **serializer.validated_data
        )

    def perform_update(self, serializer):
        serializer.instance = services.secret_named_save(
            workspace=self.request.workspace,
            name=serializer.instance.name,
            value=serializer.validated_data["value"],
        )

    def perform_destroy(self, instance):
        services.secret_named_delete(secret=instance)


class ProviderViewSet(WorkspaceScopedViewSet, viewsets.ModelViewSet):
    """OpenAI-compatible model providers. `api_key` is write-only and never returned.

    Members read them (editors pick one for a judge); only owners create, change or delete
    them, since a provider decides where the workspace's key is sent.
    """

    serializer_class = s.ProviderSerializer
    queryset = ModelProvider.objects.all()
    write_role = Membership.Role.OWNER

    def scoped_queryset(self):
        return selectors.providers_list(workspace=self.request.workspace)

    def perform_create(self, serializer):
        data = dict(serializer.validated_data)
        api_key = data.pop("api_key", None)
        serializer.instance = services.provider_create(
            workspace=self.request.workspace, api_key=api_key, **data
        )

    def perform_update(self, serializer):
        data = dict(serializer.validated_data)
        api_key = data.pop("api_key", None)
        services.provider_update(provider=serializer.instance, api_key=api_key, **data)

    def perform_destroy(self, instance):
        services.provider_delete(provider=instance)

    @extend_schema(request=None, responses=OpenApiTypes.OBJECT)
    @action(detail=True, methods=["post"], url_path="test-connection")
    def test_connection(self, request, id=None):
        """Ask the endpoint for its models with the stored key: ok, a message, a few models."""
        return Response(services.provider_test_connection(provider=self.get_object()))
