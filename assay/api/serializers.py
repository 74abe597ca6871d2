"""Serializers for platform objects. Provider API keys are write-only and never serialised."""

from __future__ import annotations

from rest_framework import serializers

from assay.models import ApiToken, Invitation, Membership, ModelProvider, Secret, Workspace
from assay.safety.origins import MAX_ORIGIN_CHARS, MAX_ORIGINS


class StrictSerializer(serializers.Serializer):
    """The base of every request body: a field it does not know is an error naming it, so a
    typo never passes silently."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = set(data) - set(self.fields)
            if unknown:
                raise serializers.ValidationError(
                    {name: "Unknown or read-only field." for name in sorted(unknown)}
                )
        return super().to_internal_value(data)


# The base of a library row's output (an evaluator, an evaluation set and their versions):
# `id` is its public id, `created_by` its author's username (null once the user is gone). A
# comment, not a docstring: the API schema would show a docstring as each subclass's description.
class AuthoredSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    created_by = serializers.CharField(source="created_by.username", read_only=True, default=None)


class WorkspaceSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    role = serializers.SerializerMethodField()

    class Meta:
        model = Workspace
        fields = ["id", "slug", "name", "created_at", "role"]
        read_only_fields = ["created_at"]
        extra_kwargs = {"slug": {"required": False, "validators": []}}

    def get_role(self, obj) -> str | None:
        user = self.context["request"].user
        membership = next((m for m in obj.memberships.all() if m.user_id == user.pk), None)
        return membership.role if membership else None


class MembershipSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username")

    class Meta:
        model = Membership
        fields = ["id", "username", "role", "created_at"]
        read_only_fields = ["id", "created_at"]


class MembershipUpdateSerializer(StrictSerializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices)


class TokenSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    workspace = serializers.SlugRelatedField(slug_field="slug", read_only=True)

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "workspace", "created_at", "last_used_at", "revoked_at"]
        read_only_fields = fields


class TokenCreateSerializer(StrictSerializer):
    name = serializers.CharField(max_length=120)


class IssuedTokenSerializer(TokenSerializer):
    key = serializers.CharField(read_only=True, help_text="Shown once; store it now.")

    class Meta(TokenSerializer.Meta):
        fields = TokenSerializer.Meta.fields + ["key"]


class SecretSerializer(serializers.ModelSerializer):
    """A named workspace secret: the value is write-only; only its last 4 characters show.
    Its origins (where it may be sent) are readable."""

    id = serializers.UUIDField(source="public_id", read_only=True)
    value = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="Write-only. HTTP targets send it where their headers say {{secrets.NAME}}. "
        "Required for a new secret; omit or send empty to keep the stored value.",
    )
    origins = serializers.ListField(
        child=serializers.CharField(max_length=MAX_ORIGIN_CHARS),
        max_length=MAX_ORIGINS,
        required=False,
        help_text="Where the secret may be sent: origins scheme://host[:port] (e.g. "
        "https://app.example.com); an HTTP target whose URL has another origin is refused. "
        "None (the default for a new secret): it is sent nowhere. Omit to keep the stored ones.",
    )

    class Meta:
        model = Secret
        fields = ["id", "name", "value", "origins", "hint", "created_at", "updated_at"]
        read_only_fields = ["hint", "created_at", "updated_at"]
        validators = []
        extra_kwargs = {"name": {"required": True, "allow_blank": False}}


class ProviderSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    api_key = serializers.CharField(
        write_only=True,
        required=False,
        allow_blank=True,
        trim_whitespace=True,
        help_text="Write-only. Omit or send empty to keep the stored key; a new base_url drops "
        "the stored key, so send the key for the new endpoint with it.",
    )
    has_api_key = serializers.BooleanField(read_only=True)
    timeout_s = serializers.FloatField(min_value=1, max_value=600, required=False)
    rpm_limit = serializers.IntegerField(min_value=1, max_value=1_000_000, required=False)

    class Meta:
        model = ModelProvider
        fields = [
            "id",
            *ModelProvider.EDITABLE_FIELDS,
            "api_key",
            "has_api_key",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["created_at", "updated_at"]
        validators = []


class InvitationSerializer(serializers.ModelSerializer):
    id = serializers.UUIDField(source="public_id", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True)

    class Meta:
        model = Invitation
        fields = ["id", "role", "created_by", "created_at", "expires_at"]
        read_only_fields = fields


class InvitationCreateSerializer(StrictSerializer):
    role = serializers.CharField(max_length=16)


class IssuedInvitationSerializer(InvitationSerializer):
    url = serializers.CharField(read_only=True, help_text="The one-time link; shown once.")

    class Meta(InvitationSerializer.Meta):
        fields = InvitationSerializer.Meta.fields + ["url"]
