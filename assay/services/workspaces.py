"""Workspaces, users, members, invitations and a user's preferences."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from ..models import (
    Invitation,
    Membership,
    UserPreference,
    Workspace,
)
from ..safety import crypto

User = get_user_model()


def workspace_create(*, name: str, owner: AbstractBaseUser, slug: str = "") -> Workspace:
    """Create a workspace with `owner` as its first owner. Without a slug one is made from the
    name (a free variant of it), or, for a name with no Latin letters or digits (客服团队), a
    short random one: the slug is optional, so a name alone must always do."""
    name = name.strip()
    if not name:
        raise ValidationError({"name": _("A workspace needs a name.")})
    slug = slugify(slug)[:64] if slug.strip() else _workspace_slug_free(name)
    if not slug:
        raise ValidationError({"slug": _("The slug must contain letters or digits.")})
    if Workspace.objects.filter(slug=slug).exists():
        raise ValidationError({"slug": _("The slug %(slug)r is taken.") % {"slug": slug}})
    with transaction.atomic():
        workspace = Workspace.objects.create(name=name, slug=slug, created_by=owner)
        Membership.objects.create(workspace=workspace, user=owner, role=Membership.Role.OWNER)
    return workspace


SLUG_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no 0/o, 1/l: read aloud or typed


def _workspace_slug_free(name: str) -> str:
    """A slug no workspace has: the name's ASCII slug, numbered when taken, else `ws-` and six
    random letters and digits (a CJK name has no ASCII slug; pinyin would add a dependency
    and still clash on homophones)."""
    base = slugify(name)[:56]
    for n in range(1, 50):
        candidate = (base if n == 1 else f"{base}-{n}") if base else _random_slug()
        if not Workspace.objects.filter(slug=candidate).exists():
            return candidate
    return _random_slug()


def _random_slug() -> str:
    return "ws-" + "".join(secrets.choice(SLUG_ALPHABET) for _i in range(6))


def workspace_rename(*, workspace: Workspace, user: AbstractBaseUser, name: str) -> Workspace:
    """Rename a workspace; only its owners may."""
    from ..selectors import membership_get

    membership = membership_get(workspace=workspace, user=user)
    if membership is None or not membership.is_owner:
        raise PermissionDenied(_("Only owners can rename a workspace."))
    name = name.strip()
    if not name:
        raise ValidationError({"name": _("A workspace needs a name.")})
    workspace.name = name[:120]
    workspace.save(update_fields=["name"])
    return workspace


def user_create(*, username: str, password: str, email: str = "") -> AbstractBaseUser:
    """Create a user account; the username must be free."""
    if User.objects.filter(username=username).exists():
        raise ValidationError(
            {"username": _("The username %(username)r is taken.") % {"username": username}}
        )
    return User.objects.create_user(username=username, password=password, email=email)


def admin_bootstrap(
    *, username: str, password: str, workspace_name: str
) -> tuple[AbstractBaseUser, Workspace | None]:
    """An installation's first administrator and workspace, safe to run on every start: a new
    account is created as a superuser (its password checked like any other), and an account
    that belongs to no workspace gets one. An existing account keeps its password: one changed
    in the app must survive a restart. Returns the user and the workspace made, or None."""
    user = User.objects.filter(username=username).first()
    if user is None:
        user = _admin_create(username=username, password=password)
    if Membership.objects.filter(user=user).exists():
        return user, None
    return user, workspace_create(name=workspace_name, owner=user)


def _admin_create(*, username: str, password: str) -> AbstractBaseUser:
    if not password:
        raise ValidationError(
            {"password": f"The account {username!r} is new: it needs a password."}
        )
    candidate = User(username=username)
    try:
        password_validation.validate_password(password, candidate)
    except ValidationError as exc:
        raise ValidationError({"password": exc.messages}) from None
    return User.objects.create_superuser(username=username, password=password, email="")


def membership_add(*, workspace: Workspace, username: str, role: str) -> Membership:
    """Add an existing user to a workspace with a role."""
    if role not in Membership.Role.values:
        raise ValidationError(
            {"role": _("Unknown role %(role)r; use owner, editor or viewer.") % {"role": role}}
        )
    user = User.objects.filter(username=username).first()
    if user is None:
        raise ValidationError(
            {"username": _("No user named %(username)r.") % {"username": username}}
        )
    try:
        with transaction.atomic():
            return Membership.objects.create(workspace=workspace, user=user, role=role)
    except IntegrityError:
        raise ValidationError(
            {"username": _("%(username)r is already a member.") % {"username": username}}
        ) from None


def membership_update(*, membership: Membership, role: str) -> Membership:
    """Change a member's role, keeping at least one owner."""
    if role not in Membership.Role.values:
        raise ValidationError(
            {"role": _("Unknown role %(role)r; use owner, editor or viewer.") % {"role": role}}
        )
    _ensure_owner_remains(membership=membership, new_role=role)
    membership.role = role
    membership.save(update_fields=["role"])
    return membership


def membership_remove(*, membership: Membership) -> None:
    """Remove a member, keeping at least one owner."""
    _ensure_owner_remains(membership=membership, new_role=None)
    membership.delete()


@dataclass(frozen=True)
class IssuedMember:
    membership: Membership
    password: str  # temporary, shown once to the owner, changed at the first sign-in


def member_create_with_password(*, workspace: Workspace, username: str, role: str) -> IssuedMember:
    """Make an account for a colleague with a random temporary password and add them with
    `role`; they must choose their own password when they first sign in."""
    errors = {}
    if role not in Membership.Role.values:
        errors["role"] = [_("Unknown role %(role)r; use owner, editor or viewer.") % {"role": role}]
    try:
        User.username_validator(username)
    except ValidationError as exc:
        errors["username"] = exc.messages
    if errors:
        raise ValidationError(errors)
    password = secrets.token_urlsafe(12)
    with transaction.atomic():
        user = user_create(username=username, password=password)
        UserPreference.objects.create(user=user, must_change_password=True)
        membership = Membership.objects.create(workspace=workspace, user=user, role=role)
    return IssuedMember(membership=membership, password=password)


def password_change_done(*, user: AbstractBaseUser) -> None:
    """The user chose their own password: the temporary one's hold on them ends."""
    UserPreference.objects.filter(user=user).update(must_change_password=False)
    user._assay_must_change = False


INVITATION_DAYS = 7


@dataclass(frozen=True)
class IssuedInvitation:
    invitation: Invitation
    key: str  # in the link, shown once, never stored


def invitation_create(
    *, workspace: Workspace, user: AbstractBaseUser, role: str
) -> IssuedInvitation:
    """A one-time invitation to `workspace` with `role`, valid for INVITATION_DAYS days; the
    key (for the link) is returned once and only its hash is kept."""
    if role not in Membership.Role.values:
        raise ValidationError(
            {"role": _("Unknown role %(role)r; use owner, editor or viewer.") % {"role": role}}
        )
    key = "inv_" + secrets.token_urlsafe(30)
    invitation = Invitation.objects.create(
        workspace=workspace,
        role=role,
        key_hash=crypto.hash_token_key(key),
        created_by=user,
        expires_at=timezone.now() + timedelta(days=INVITATION_DAYS),
    )
    return IssuedInvitation(invitation=invitation, key=key)


def invitation_revoke(*, invitation: Invitation) -> Invitation:
    """Withdraw an unused invitation; its link stops working (revoking twice is harmless)."""
    if invitation.revoked_at is None and invitation.accepted_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def invitation_accept(*, invitation: Invitation, user: AbstractBaseUser) -> Membership:
    """Make `user` a member with the invitation's role and use the invitation up. The claim
    is one conditional UPDATE, so two people opening one link cannot both get in; an
    existing member keeps their role (the invitation is used up all the same)."""
    with transaction.atomic():
        claimed = Invitation.objects.filter(
            pk=invitation.pk,
            accepted_at__isnull=True,
            revoked_at__isnull=True,
            expires_at__gt=timezone.now(),
        ).update(accepted_at=timezone.now(), accepted_by=user)
        if not claimed:
            raise ValidationError(_("This invitation was used, withdrawn or has expired."))
        membership, _created = Membership.objects.get_or_create(
            workspace=invitation.workspace, user=user, defaults={"role": invitation.role}
        )
    return membership


def invitation_accept_new_user(
    *, invitation: Invitation, username: str, password: str
) -> AbstractBaseUser:
    """Create the invitee's account and accept the invitation with it, in one transaction:
    a used-up invitation creates no account."""
    with transaction.atomic():
        user = user_create(username=username, password=password)
        invitation_accept(invitation=invitation, user=user)
    return user


def _ensure_owner_remains(*, membership: Membership, new_role: str | None) -> None:
    if membership.role != Membership.Role.OWNER or new_role == Membership.Role.OWNER:
        return
    owners = membership.workspace.memberships.filter(role=Membership.Role.OWNER)
    if owners.count() <= 1:
        raise ValidationError({"role": _("A workspace must keep at least one owner.")})


def preference_language_set(*, user: AbstractBaseUser, language: str) -> None:
    """Save `language` (a code of settings.LANGUAGES; anything else is ignored) as the user's
    interface language."""
    if language not in dict(settings.LANGUAGES):
        return
    UserPreference.objects.update_or_create(user=user, defaults={"language": language})
    user._assay_language = language
