"""API endpoints for workspaces, members, tokens and providers."""

from __future__ import annotations

from django.db.models import Prefetch
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import SAFE_METHODS
from rest_framework.response import Response

from assay import selectors, services
from assay.models import ApiToken, Invitation, Membership, ModelProvider, Secret

from . import serializers as s
from .base import WorkspaceMixin, WorkspaceScopedViewSet, validated


@extend_schema_view(
    list=extend_schema(
        summary=_("List your workspaces"),
        description=_(
            "Returns the workspaces you are a member of, each with your `role` in it. With an "
            "API token, only the token's own workspace is listed."
        ),
    ),
    create=extend_schema(
        summary=_("Create a workspace"),
        description=_(
            "Creates a workspace with you as its only owner. `slug` (used in page URLs and in "
            "`X-Assay-Workspace`) is made from the name when left out: numbered when taken, "
            "and a short random one (`ws-k3m9qa`) for a name without Latin letters or digits. "
            "Needs a signed-in session: an API token acts inside its own workspace and gets "
            "403. 400 names the field when the name is empty or a given slug is taken or has "
            "no letters or digits."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get a workspace"),
        description=_(
            "One workspace by its slug, with your role in it. 404 when you are not a member "
            "(with an API token: when it is not the token's workspace)."
        ),
    ),
    partial_update=extend_schema(
        summary=_("Rename a workspace"),
        description=_(
            "Changes the workspace's `name`; the slug stays. Owners only, from a signed-in "
            "session (403 otherwise); 400 when the name is empty."
        ),
    ),
)
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
                message=gettext(
                    "An API token acts inside its own workspace; sign in to create or rename "
                    "workspaces."
                ),
            )

    def perform_create(self, serializer):
        data = serializer.validated_data
        serializer.instance = services.workspace_create(
            name=data["name"], slug=data.get("slug", ""), owner=self.request.user
        )

    def perform_update(self, serializer):
        name = serializer.validated_data.get("name", serializer.instance.name)
        services.workspace_rename(workspace=serializer.instance, user=self.request.user, name=name)


@extend_schema_view(
    list=extend_schema(
        summary=_("List members"),
        description=_(
            "The workspace's members with their role: owner (manages members, secrets and "
            "model providers), editor (creates and runs evaluators, evalsets and experiments) "
            "or viewer (reads). Any member may list them."
        ),
    ),
    create=extend_schema(
        summary=_("Add a member"),
        description=_(
            "Adds an existing user by `username` with a `role` (owner, editor or viewer; "
            "editor when left out). Owners only (403 otherwise). 400 names the field when no "
            "user has that username, the user is already a member or the role is unknown."
        ),
    ),
    partial_update=extend_schema(
        summary=_("Change a member's role"),
        description=_(
            "Sets the member's `role`. Owners only. 400 when the role is unknown or the change "
            "would leave the workspace without an owner; 404 when the id is not a member of "
            "this workspace."
        ),
    ),
    destroy=extend_schema(
        summary=_("Remove a member"),
        description=_(
            "Removes the member from the workspace; their API tokens for it stop working. "
            "Owners only; 400 when they are its last owner."
        ),
    ),
)
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


@extend_schema_view(
    list=extend_schema(
        summary=_("List open invitations"),
        description=_(
            "The workspace's invitations that can still be accepted: role, who created each "
            "and when it expires. Owners only; the links are never returned again."
        ),
    ),
    create=extend_schema(
        summary=_("Invite a colleague"),
        description=_(
            "Creates a one-time invitation link for `role` (owner, editor or viewer), valid "
            "for 7 days. The response carries the `url` once: send it to your colleague, who "
            "opens it to make an account (or sign in) and join. Owners only; 400 names a bad "
            "role."
        ),
    ),
    destroy=extend_schema(
        summary=_("Withdraw an invitation"),
        description=_(
            "Its link stops working at once (204); 404 for one already used, withdrawn or expired."
        ),
    ),
)
class InvitationViewSet(WorkspaceScopedViewSet, mixins.ListModelMixin, mixins.DestroyModelMixin):
    """One-time invitation links to the request's workspace; owners create and withdraw them."""

    serializer_class = s.InvitationSerializer
    queryset = Invitation.objects.all()
    write_role = Membership.Role.OWNER

    def scoped_queryset(self):
        if not (self.request.membership and self.request.membership.is_owner):
            return Invitation.objects.none()  # members see no links to hand out
        return selectors.invitations_pending(workspace=self.request.workspace)

    @extend_schema(
        request=s.InvitationCreateSerializer, responses={201: s.IssuedInvitationSerializer}
    )
    def create(self, request):
        body = validated(s.InvitationCreateSerializer, request)
        issued = services.invitation_create(
            workspace=request.workspace, user=request.user, role=body["role"]
        )
        issued.invitation.url = request.build_absolute_uri(
            reverse("invitation", kwargs={"key": issued.key})
        )
        data = s.IssuedInvitationSerializer(issued.invitation).data
        return Response(data, status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance):
        services.invitation_revoke(invitation=instance)


@extend_schema_view(
    list=extend_schema(
        summary=_("List your API tokens"),
        description=_(
            "Your tokens for this workspace: name, key prefix, when each was created and last "
            "used, and whether it is revoked. Other members' tokens are not listed, and a key "
            "is never returned after its creation."
        ),
    ),
    create=extend_schema(
        summary=_("Create an API token"),
        description=_(
            "Issues a token named `name` that acts as you, with your role, in this workspace "
            "only. The response carries the `key` once: store it now, only its hash is kept. "
            "Send it as `Authorization: Bearer <key>` (or `Token <key>`). Any member may "
            "create one; 400 when the name is empty."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get an API token"),
        description=_(
            "One of your tokens, without its key. 404 for another member's token or one of "
            "another workspace."
        ),
    ),
    revoke=extend_schema(
        summary=_("Revoke an API token"),
        description=_(
            "The token stops working at once and `revoked_at` is set; revoking it again "
            "changes nothing. A revoked token cannot be restored: create a new one."
        ),
    ),
)
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


@extend_schema_view(
    list=extend_schema(
        summary=_("List secrets"),
        description=_(
            "The workspace's named secrets with the last characters of each value (`hint`) "
            "and the origins each may be sent to; values are never returned. Any member may "
            "list them."
        ),
    ),
    create=extend_schema(
        summary=_("Store a secret"),
        description=_(
            "Stores `value` encrypted under `name` (letters, digits and _, at most 64 "
            "characters, e.g. APP_TOKEN); an HTTP target's headers use it as "
            "`{{secrets.NAME}}`, and may send it only to its `origins` (scheme://host[:port], "
            "at most 20; none: it is sent nowhere). Storing a name that exists replaces its "
            "value (empty: keeps it) and its origins when given. Owners only. 400 names the "
            "field when the name is malformed, a new secret has no value, the value is over "
            "8 KB, or an origin is not scheme://host[:port]."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get a secret"),
        description=_("One secret's name, origins, hint and dates; the value is never returned."),
    ),
    update=extend_schema(
        summary=_("Change a secret's value or origins"),
        description=_(
            "Sets a new `value` (omitted or empty: the stored one stays) and the `origins` it "
            "may be sent to (omitted: the stored ones stay); the name does not change. An HTTP "
            "target whose URL's origin is no longer listed is refused from its next request. "
            "Owners only; 400 when the value is over 8 KB or an origin is not "
            "scheme://host[:port]."
        ),
    ),
    destroy=extend_schema(
        summary=_("Delete a secret"),
        description=_(
            "Deletes the secret. Rows of HTTP targets whose headers use it fail until a "
            "secret of that name exists again. Owners only."
        ),
    ),
)
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

    def update(self, request, *args, **kwargs):
        # Every field may be left out: the name stays, and so do an omitted value and origins.
        kwargs["partial"] = True
        return super().update(request, *args, **kwargs)

    def perform_update(self, serializer):
        serializer.instance = services.secret_named_save(
            workspace=self.request.workspace,
            name=serializer.instance.name,
            value=serializer.validated_data.get("value"),
            origins=serializer.validated_data.get("origins"),
        )

    def perform_destroy(self, instance):
        services.secret_named_delete(secret=instance)


@extend_schema_view(
    list=extend_schema(
        summary=_("List model providers"),
        description=_(
            "The workspace's OpenAI-compatible endpoints, used by LLM judges and prompt "
            "targets: name, base URL, default model, call settings (timeout, retries, rate "
            "limits, structured output) and prices. `has_api_key` says whether a key is "
            "stored; the key itself is never returned. Any member may list them."
        ),
    ),
    create=extend_schema(
        summary=_("Add a model provider"),
        description=_(
            "Creates a provider from `name`, `base_url` (checked against the outbound policy), "
            "`default_model`, optional call settings, `prices` ({model: {input, output}} in USD "
            "per million tokens) and an optional `api_key`, stored encrypted. Owners only. 400 "
            "names the field when the name is taken, the URL is not allowed or the prices are "
            "malformed."
        ),
    ),
    retrieve=extend_schema(
        summary=_("Get a model provider"),
        description=_("One provider with its settings; the API key is never returned."),
    ),
    update=extend_schema(
        summary=_("Replace a model provider"),
        description=_(
            "Sets every field, as when adding one. Leave `api_key` out (or empty) to keep the "
            "stored key; a new `base_url` drops it, so send the key for the new endpoint with "
            "it. Owners only; 400 names the field at fault."
        ),
    ),
    partial_update=extend_schema(
        summary=_("Update a model provider"),
        description=_(
            "Changes only the fields given. Leave `api_key` out (or empty) to keep the stored "
            "key; a new `base_url` drops it, so send the key for the new endpoint with it. "
            "Owners only; 400 names the field at fault."
        ),
    ),
    destroy=extend_schema(
        summary=_("Delete a model provider"),
        description=_("Deletes the provider and its stored key. Owners only."),
    ),
    test_connection=extend_schema(
        summary=_("Test a provider's connection"),
        description=_(
            "Asks the endpoint for its models (GET <base_url>/models) with the stored key and "
            "answers `ok`, a `message`, a few `models` and `latency_ms`. A refused address, a "
            "failure to connect or an HTTP error from the endpoint is an answer with `ok` "
            "false, not an error status. Owners only."
        ),
    ),
)
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
