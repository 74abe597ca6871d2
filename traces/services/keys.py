"""Ingest keys: write-only workspace keys for the OTLP endpoint."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext as _

from assay.models import Workspace
from assay.safety import crypto
from assay.services import hashed_key_revoke

from ..models import IngestKey

# Not the API tokens' `asy_`: a leaked key says what it is, and what it cannot do.
KEY_PREFIX = "asy_ingest_"


@dataclass(frozen=True)
class IssuedIngestKey:
    ingest_key: IngestKey
    key: str  # shown once, never stored


def ingest_key_issue(
    *, workspace: Workspace, name: str, user: AbstractBaseUser | None = None
) -> IssuedIngestKey:
    """Issue an ingest key; the plaintext is returned once and only its hash is kept."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": _("An ingest key needs a name.")})
    key = KEY_PREFIX + secrets.token_urlsafe(30)
    ingest_key = IngestKey.objects.create(
        workspace=workspace,
        created_by=user,
        name=name[:120],
        prefix=key[: len(KEY_PREFIX) + 4],
        key_hash=crypto.hash_token_key(key),
    )
    return IssuedIngestKey(ingest_key=ingest_key, key=key)


def ingest_key_revoke(*, ingest_key: IngestKey) -> IngestKey:
    """Revoke an ingest key; revoking twice is harmless."""
    return hashed_key_revoke(key=ingest_key)


def ingest_key_authenticate(*, key: str) -> IngestKey | None:
    """The key a presented plaintext is, revoked or not (the caller tells the two apart:
    401 for an unknown key, 403 for a revoked one); None when no key has that hash."""
    if not key.startswith(KEY_PREFIX) or len(key) > 200:
        return None
    found = (
        IngestKey.objects.select_related("workspace")
        .filter(key_hash=crypto.hash_token_key(key))
        .first()
    )
    if found is not None and found.is_active:
        IngestKey.objects.filter(pk=found.pk).update(last_used_at=timezone.now())
    return found
