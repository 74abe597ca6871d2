"""API tokens and named secrets."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from ..bases import HashedKey
from ..models import (
    ApiToken,
    Membership,
    Secret,
    Workspace,
)
from ..safety import crypto
from ..safety.origins import OriginError, origins_normalized

K = TypeVar("K", bound=HashedKey)


@dataclass(frozen=True)
class IssuedToken:
    token: ApiToken
    key: str  # shown once, never stored


def token_issue(*, workspace: Workspace, user: AbstractBaseUser, name: str) -> IssuedToken:
    """Issue an API token; the plaintext key is returned once and only its hash is kept."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": _("A token needs a name.")})
    key = crypto.new_token_key()
    token = ApiToken.objects.create(
        workspace=workspace,
        user=user,
        name=name[:120],
        prefix=key[:10],
        key_hash=crypto.hash_token_key(key),
    )
    return IssuedToken(token=token, key=key)


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke a token; revoking twice is harmless."""
    return hashed_key_revoke(key=token)


def hashed_key_revoke(*, key: K) -> K:
    """Revoke a key stored as its hash (an API token, an ingest key): from now on it is
    refused; revoking twice keeps the first time."""
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key


def token_authenticate(*, key: str) -> ApiToken | None:
    """Resolve a presented key to an active token whose user is still a member."""
    token = (
        ApiToken.objects.select_related("user", "workspace")
        .filter(key_hash=crypto.hash_token_key(key), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    if not Membership.objects.filter(workspace=token.workspace, user=token.user).exists():
        return None
    ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    return token


def secret_store(*, workspace: Workspace, value: str, secret: Secret | None = None) -> Secret:
    """Encrypt and store a value (creating or replacing a secret)."""
    if secret is None:
        secret = Secret(workspace=workspace)
    secret.ciphertext = crypto.encrypt(value)
    secret.hint = value[-4:] if len(value) >= 12 else ""
    secret.save()
    return secret


SECRET_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
MAX_SECRET_BYTES = 8192


def secret_named_save(
    *,
    workspace: Workspace,
    name: str,
    value: str | None = None,
    origins: list[str] | None = None,
) -> Secret:
    """Create the named secret, or change it; HTTP targets use it as `{{secrets.NAME}}` in
    headers and may send it only to its `origins` (scheme://host[:port]; none: nowhere).
    An empty `value` keeps the stored one (a new secret needs one), `origins` None keeps the
    stored ones. The value is write-only from here on."""
    secret = Secret.objects.filter(workspace=workspace, name=name).first() if name else None
    errors = _secret_problems(name, value, origins, is_new=secret is None)
    if errors:
        raise ValidationError(errors)
    secret = secret or Secret(workspace=workspace, name=name)
    if origins is not None:
        secret.origins = origins_normalized(origins)
    if not value:
        secret.save(update_fields=["origins", "updated_at"])
        return secret
    return secret_store(workspace=workspace, value=value, secret=secret)


def _secret_problems(name, value, origins, *, is_new: bool) -> dict[str, list[str]]:
    errors = {}
    if not isinstance(name, str) or not SECRET_NAME.match(name):
        errors["name"] = [_("Give a name of letters, digits and _ (e.g. APP_TOKEN), at most 64.")]
    if value is None or value == "":
        if is_new:
            errors["value"] = [_("Give the secret's value.")]
    elif not isinstance(value, str) or len(value.encode()) > MAX_SECRET_BYTES:
        errors["value"] = [_("Give a value of at most 8 KB.")]
    if origins is not None:
        try:
            origins_normalized(origins)
        except OriginError as exc:
            errors["origins"] = [str(exc)]
    return errors


def secret_named_delete(*, secret: Secret) -> None:
    """Delete a named secret (experiments that use it fail their rows until it is back)."""
    if not secret.name:
        raise ValidationError({"secret": _("A provider's key is removed with its provider.")})
    secret.delete()


def secret_reveal(*, secret: Secret) -> str:
    """The plaintext, for the one place that needs it: the request to the provider."""
    return crypto.decrypt(secret.ciphertext)
