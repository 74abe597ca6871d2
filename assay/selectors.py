"""Reads and workspace scoping for platform objects: the one place that decides who sees what."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from .models import (
    ApiToken,
    Invitation,
    Membership,
    ModelProvider,
    Secret,
    UserPreference,
    WorkerBeat,
    Workspace,
)


def workspaces_for_user(*, user: AbstractBaseUser) -> QuerySet[Workspace]:
    """Workspaces the user belongs to."""
    if not user.is_authenticated:
        return Workspace.objects.none()
    return Workspace.objects.filter(memberships__user=user).distinct()


def membership_get(*, workspace: Workspace, user: AbstractBaseUser) -> Membership | None:
    """The user's membership, or None for an outsider."""
    if not user.is_authenticated:
        return None
    return Membership.objects.filter(workspace=workspace, user=user).first()


def workspace_get_for_user(*, user: AbstractBaseUser, slug: str) -> Workspace:
    """A workspace by slug, or 404 for anyone who is not a member (never 403: no existence leak)."""
    workspace = workspaces_for_user(user=user).filter(slug=slug).first()
    if workspace is None:
        raise Http404(_("No such workspace"))
    return workspace


def members_list(*, workspace: Workspace) -> QuerySet[Membership]:
    return workspace.memberships.select_related("user").order_by("user__username")


def tokens_list(*, workspace: Workspace, user: AbstractBaseUser) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(workspace=workspace, user=user)


def providers_list(*, workspace: Workspace) -> QuerySet[ModelProvider]:
    return ModelProvider.objects.filter(workspace=workspace).select_related("api_key")


def secrets_list(*, workspace: Workspace) -> QuerySet[Secret]:
    """The workspace's named secrets (provider keys have no name and are not listed)."""
    return Secret.objects.filter(workspace=workspace).exclude(name="").order_by("name")


def secret_names(*, workspace: Workspace) -> set[str]:
    return set(secrets_list(workspace=workspace).values_list("name", flat=True))


def secrets_named(*, workspace: Workspace, names) -> list[Secret]:
    return list(secrets_list(workspace=workspace).filter(name__in=list(names)))


def as_uuid(value) -> uuid.UUID | None:
    """A public id from a query string or a body as a UUID; None when it is not one. (Ids in
    URLs are matched by `<uuid:…>` converters and never need this.)"""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError, AttributeError):
        return None


def unknown_named(field: str, wanted, known, message: str) -> dict[str, list[str]]:
    """{"field[i]": [message]} for each of `wanted` not in `known` (a list's problems as the
    API names them, by position)."""
    return {f"{field}[{i}]": [message] for i, value in enumerate(wanted) if value not in known}


def by_public_id(queryset: QuerySet, public_id, *, field: str = "public_id"):
    """The row of `queryset` with that public id, or None (also for a missing or malformed id)."""
    ref = as_uuid(public_id)
    return queryset.filter(**{field: ref}).first() if ref else None


def public_or_404(queryset: QuerySet, public_id, what: str, *, field: str = "public_id"):
    """The row of `queryset` with that public id, or a 404 "No such <what>" (also for a
    malformed id: scope `queryset` to the workspace and an outsider's id looks the same)."""
    found = by_public_id(queryset, public_id, field=field)
    if found is None:
        raise Http404(f"No such {what}")
    return found


def library_versions(*, item) -> list:
    """The versions of a library item (an evaluator, an evaluation set), highest SemVer first."""
    from assay.semver import sort_key

    versions = list(item.versions.select_related("created_by"))
    return sorted(versions, key=lambda v: sort_key(v.version), reverse=True)


def library_version_get(*, item, version: str):
    """One version of a library item by its SemVer string, or 404 (also for a string that is
    no version: never sent to the database, which refuses a NUL in it)."""
    from assay.semver import SEMVER_RE

    valid = isinstance(version, str) and SEMVER_RE.match(version)
    found = item.versions.filter(version=version).first() if valid else None
    if found is None:
        raise Http404(f"No version {version}")
    return found


def provider_find(*, workspace: Workspace, public_id) -> ModelProvider | None:
    """The workspace's provider with that id, or None (also for a missing or malformed id)."""
    return by_public_id(providers_list(workspace=workspace), public_id)


def scoped_get(queryset: QuerySet, *, workspace: Workspace, **lookup):
    """Fetch one object inside a workspace, or 404 whether it is missing or someone else's."""
    obj = queryset.filter(workspace=workspace, **lookup).first()
    if obj is None:
        raise Http404("Not found")
    return obj


def demo_sign_in() -> tuple[str, str] | None:
    """(user, password) of the demo account when the demo is loaded outside production."""
    from django.conf import settings

    from .demo import DEMO_PASSWORD, DEMO_USERNAME, DEMO_WORKSPACE

    if settings.PRODUCTION or not Workspace.objects.filter(slug=DEMO_WORKSPACE).exists():
        return None
    return DEMO_USERNAME, DEMO_PASSWORD


def preference_language(*, user) -> str:
    """The interface language a signed-in user chose ("" if none: follow the cookie or the
    browser). Remembered on the user object, so a request reads it once."""
    if not getattr(user, "is_authenticated", False):
        return ""
    cached = _preference(user)["language"]
    return cached if cached in dict(settings.LANGUAGES) else ""


def password_change_required(*, user) -> bool:
    """True while a signed-in user still has the temporary password an owner set (read with
    the language, in the same one query a request makes)."""
    if not getattr(user, "is_authenticated", False):
        return False
    return _preference(user)["must_change_password"]


def _preference(user) -> dict:
    if getattr(user, "_assay_language", None) is None:
        found = UserPreference.objects.filter(user=user).values_list(
            "language", "must_change_password"
        )
        language, must_change = found.first() or ("", False)
        user._assay_language, user._assay_must_change = language or "", must_change
    return {
        "language": user._assay_language,
        "must_change_password": getattr(user, "_assay_must_change", False),
    }


def workers_status() -> dict:
    """The workers' heartbeats for /healthz and the run pages: `live` when one ran a task
    within ASSAY_WORKER_STALE_S, the newest beat's age, and each worker's age (newest first)."""
    now, stale = timezone.now(), settings.ASSAY_WORKER_STALE_S
    beats = WorkerBeat.objects.order_by("-beat_at").values_list("hostname", "beat_at")[:20]
    workers = [
        {"hostname": host, "age_s": round((now - at).total_seconds(), 1)} for host, at in beats
    ]
    newest = workers[0]["age_s"] if workers else None
    return {
        "live": newest is not None and newest <= stale,
        "last_beat_age_s": newest,
        "stale_after_s": stale,
        "workers": workers,
    }


def run_waits_for_worker(*, active: bool, started: bool, heartbeat_at) -> bool:
    """Whether an active run (an experiment or a pairwise run) has no live worker to move it:
    no worker beat lately, and the run has not started or not progressed lately either (a
    run's own progress shows a busy worker that has not beaten yet)."""
    if not active or workers_status()["live"]:
        return False
    if not started or heartbeat_at is None:
        return True
    return (timezone.now() - heartbeat_at).total_seconds() > settings.ASSAY_WORKER_STALE_S


def invitation_by_key(*, key: str):
    """The invitation a link's key opens, if it is still usable (not used, withdrawn or
    expired), else None."""
    from .safety.crypto import hash_token_key

    if not isinstance(key, str) or not key.startswith("inv_") or len(key) > 100:
        return None
    return (
        Invitation.objects.select_related("workspace", "created_by")
        .filter(
            key_hash=hash_token_key(key),
            accepted_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        )
        .first()
    )


def invitations_pending(*, workspace: Workspace):
    """The workspace's invitations that can still be accepted, newest first."""
    return Invitation.objects.filter(
        workspace=workspace,
        accepted_at__isnull=True,
        revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).select_related("created_by")
