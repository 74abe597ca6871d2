"""Platform-wide models: workspaces, memberships, invitations, API tokens, encrypted secrets,
providers, workers' heartbeats."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .bases import HashedKey


class Workspace(models.Model):
    """The tenant: every object belongs to exactly one workspace."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=120)
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    interval_defaults = models.JSONField(
        default=dict, blank=True, help_text="the workspace's default interval settings for runs"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role in a workspace."""

    class Role(models.TextChoices):
        OWNER = "owner", _("Owner")
        EDITOR = "editor", _("Editor")
        VIEWER = "viewer", _("Viewer")

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.EDITOR)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "user"], name="unique_membership")
        ]
        ordering = ["workspace", "user__username"]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"

    @property
    def can_edit(self) -> bool:
        return self.role in {self.Role.OWNER, self.Role.EDITOR}

    @property
    def is_owner(self) -> bool:
        return self.role == self.Role.OWNER


class Invitation(models.Model):
    """A one-time link that makes its holder a member of one workspace with one role: only
    the hash of its key is stored, it expires, and the first acceptance uses it up."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="invitations")
    role = models.CharField(max_length=16, choices=Membership.Role.choices)
    key_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"invitation to {self.workspace} ({self.role})"


class ApiToken(HashedKey):
    """A revocable API key acting as its user inside one workspace; only its hash is stored."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="tokens")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )


class Secret(models.Model):
    """An encrypted value: a provider's API key (no name), or a named workspace secret that
    HTTP targets reference in headers as `{{secrets.NAME}}`. Write-only: nothing returns the
    plaintext except `assay.services.secret_reveal`, called only where it is sent.

    A named secret goes only to the `origins` its owner listed (`scheme://host[:port]`,
    normalised by `assay.safety.origins`); with none it goes nowhere. A provider's key needs
    none: it goes to its provider's base URL, and a new base URL drops it."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="secrets")
    name = models.CharField(max_length=64, blank=True)
    ciphertext = models.TextField()
    hint = models.CharField(max_length=8, blank=True)
    origins = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "name"],
                condition=~models.Q(name=""),
                name="unique_secret_name",
            )
        ]

    def __str__(self) -> str:
        return f"Secret {self.public_id}"

    def __repr__(self) -> str:
        return f"<Secret {self.public_id}>"


class ModelProvider(models.Model):
    """An OpenAI-compatible endpoint that LLM judges and prompt targets call."""

    class StructuredMode(models.TextChoices):
        JSON_SCHEMA = "json_schema", _("Structured output (JSON schema)")
        TOOL = "tool", _("Tool call")
        JSON_OBJECT = "json_object", _("JSON mode")
        TEXT = "text", _("Plain text with a JSON instruction")

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="providers")
    name = models.CharField(max_length=120)
    base_url = models.URLField(max_length=500)
    api_key = models.OneToOneField(
        Secret, null=True, blank=True, on_delete=models.SET_NULL, related_name="provider"
    )
    default_model = models.CharField(max_length=200)
    timeout_s = models.FloatField(default=60.0)
    rpm_limit = models.PositiveIntegerField(default=600)
    tpm_limit = models.PositiveIntegerField(null=True, blank=True)
    structured_mode = models.CharField(
        max_length=16, choices=StructuredMode.choices, default=StructuredMode.JSON_OBJECT
    )
    max_retries = models.PositiveSmallIntegerField(default=4)
    prices = models.JSONField(
        default=dict,
        blank=True,
        help_text='Per model, USD per million tokens: {"gpt-4o": {"input": 2.5, "output": 10}}.',
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # How calls to the provider are made (the call settings judges and targets use) …
    CALL_FIELDS = ("timeout_s", "rpm_limit", "tpm_limit", "structured_mode", "max_retries")
    # … and everything an owner edits besides the write-only key.
    EDITABLE_FIELDS = ("name", "base_url", "default_model", *CALL_FIELDS, "prices")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["workspace", "name"], name="unique_provider_name")
        ]
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def has_api_key(self) -> bool:
        return self.api_key_id is not None


class UserPreference(models.Model):
    """What a user chose for themself: the interface language (blank: follow the browser);
    and whether their password is a temporary one to change at the next sign-in."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="preference"
    )
    language = models.CharField(max_length=16, choices=settings.LANGUAGES, blank=True)
    must_change_password = models.BooleanField(
        default=False, help_text="Signed in with a temporary password an owner was shown."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.user}: {self.language or 'browser'}"


class WorkerBeat(models.Model):
    """The last sign of life of one Celery worker: when one of its pool processes last ran a
    task (the heartbeat task the beat schedule sends every ASSAY_WORKER_HEARTBEAT_S, or any
    other task). /healthz and the run pages read it: a worker whose pool no longer runs tasks
    stops beating, however alive its main process looks."""

    hostname = models.CharField(max_length=255, unique=True)
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.hostname} at {self.beat_at:%Y-%m-%d %H:%M:%S}"
